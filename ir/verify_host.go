package ir

// Host statements: launches, regions, copies, swaps and printf.

func (v *verifier) launch(s *Launch) {
	v.only(s.Pos, "launch", hostCode)
	k := v.funcs[s.Kernel]
	switch {
	case k == nil:
		v.errorf(s.Pos, "launch of undeclared kernel %s", s.Kernel)
	case k.Kind != KernelFunc:
		v.errorf(s.Pos, "launch of %s %s; only kernels are launched", kindName(k.Kind), s.Kernel)
		k = nil
	}
	v.args(s.Pos, k, s.Kernel, s.Args)
	v.integer(s.Grid, "grid size")
	v.integer(s.Block, "block size")
	v.launches = append(v.launches, s)
	if s.Stride && (!s.Coop || s.World) {
		v.errorf(s.Pos, "only a cooperative launch on one device strides")
	}
	if s.Fallback != nil {
		if !s.Coop {
			v.errorf(s.Pos, "only a cooperative launch has a fallback")
		}
		v.nested(s.Fallback, false, "")
	}
}

func (v *verifier) region(s *Region) {
	switch {
	case v.cx.code == regionCode:
		v.errorf(s.Pos, "nested region")
	case v.only(s.Pos, "region", hostCode) && v.level != SPMDLevel:
		v.errorf(s.Pos, "region is SPMD-level; lower it with the passes first")
	}
	v.integer(s.Procs, "region size")
	v.regions = append(v.regions, regionSite{fn: v.fn, region: s})
	saved := v.cx
	v.cx.code = regionCode
	v.push(true)
	v.nested(s.Body, false, "region")
	v.pop()
	v.cx = saved
}

func (v *verifier) copyStmt(s *Copy) {
	v.only(s.Pos, "copy", hostCode)
	dst := v.memory(s.Dst, s.Pos, true)
	v.storesOnly(s.Dst, s.Pos, "a copy")
	src := v.memory(s.Src, s.Pos, false)
	if dst != src && dst != Invalid && src != Invalid {
		v.errorf(s.Pos, "copy from %s of %s to %s of %s; element types differ", s.Src, src, s.Dst, dst)
	}
	v.integer(s.DstOff, "copy destination offset")
	v.integer(s.SrcOff, "copy source offset")
	v.integer(s.Count, "copy count")
}

func (v *verifier) write(s *Write) {
	if !v.only(s.Pos, "write", hostCode) {
		v.integer(s.Count, "write count")
		return
	}
	if t := v.memory(s.Array, s.Pos, false); t != U8 && t != Invalid {
		v.errorf(s.Pos, "write of %s, which holds %s; write takes a host array or buffer of u8", s.Array, t)
	}
	v.integer(s.Count, "write count")
}

func (v *verifier) swap(s *Swap) {
	v.only(s.Pos, "swap", hostCode)
	a, b := v.swappable(s.A, s.Pos), v.swappable(s.B, s.Pos)
	if a == nil || b == nil {
		return
	}
	if a.Below != b.Below || a.Below && a.Bound != b.Bound {
		v.errorf(s.Pos, "swap of %s and %s, which differ in their below bounds (Note [Bounded buffers])", s.A, s.B)
	}
	sameLen := !v.cleanLen[a] || !v.cleanLen[b] || PrintExpr(a.Len) == PrintExpr(b.Len)
	if a.Space != b.Space {
		v.errorf(s.Pos, "swap of %s buffer %s and %s buffer %s; their spaces differ", a.Space, s.A, b.Space, s.B)
	}
	if a.Elem != b.Elem || !sameLen {
		v.errorf(s.Pos, "swap of %s and %s, which differ in type or length", s.A, s.B)
	}
}

// swappable resolves an operand of swap: a global, non-static buffer.
func (v *verifier) swappable(name string, pos Pos) *Buffer {
	b := v.buffers[name]
	switch {
	case b == nil && v.arrays[name] != nil:
		v.errorf(pos, "swap of host array %s; swap exchanges device buffers", name)
	case b == nil:
		v.errorf(pos, "swap of undeclared buffer %s", name)
	case !validSpace(b.Space): // reported at the declaration
	case !b.Space.IsDevice() || b.Role == Static:
		v.errorf(pos, "swap of %s buffer %s; swap exchanges global or world, non-static buffers", b.Space, name)
	default:
		return b
	}
	return nil
}

func (v *verifier) printf(s *Printf) {
	v.only(s.Pos, "printf", hostCode, regionCode)
	pieces, err := ParseFormat(s.Format)
	if err != nil {
		v.errorf(s.Pos, "%v", err)
		return
	}
	n := 0
	for _, p := range pieces {
		if p.Verb == 0 {
			continue
		}
		if n < len(s.Args) {
			v.printfArg(s.Args[n], n+1, p)
		}
		n++
	}
	for _, e := range s.Args[min(n, len(s.Args)):] {
		v.expr(e, "printf argument")
	}
	if n != len(s.Args) {
		v.errorf(s.Pos, "printf format has %s but %s", count(n, "conversion"), count(len(s.Args), "argument"))
	}
}

func (v *verifier) printfArg(e Expr, i int, p FormatPiece) {
	t := String
	if s, ok := e.(*Str); !ok || s == nil {
		t = v.expr(e, "printf argument")
	}
	if t != Invalid && !p.Accepts(t) {
		v.errorf(e.At(), "printf argument %d for %s has type %s, want %s", i, p.Spec(), t, p.Want())
	}
}

// regionSite is a region and the host function that holds it.
type regionSite struct {
	fn     *Func
	region *Region
}
