package chr

import (
	"fmt"
	"slices"

	"gpuc/ir"
)

// store is the structure-of-arrays store of one constraint type.
type store struct {
	ct    *ctype
	base  string   // the name stem of its buffers
	args  []string // one buffer per argument
	state string   // i32: 1 alive, 0 free or removed
	born  string   // i32: the step from which the constraint is visible
	claim string   // u64 claim words (Note [Parallel firing]); "" if nothing removes this type
	top   string   // i32[1]: slots handed out so far, at most cap (Note [Store tops])
	taken string   // i32[1]: slots asked for, past cap where the store is full
	// The live constraints packed after the fixpoint: their count (i32[1])
	// and one array per argument (Note [Output]).
	live   string
	packed []string
	order  string // i32: the packed constraints' indices, sorted
	// Output formatted on the device (Note [Output]), for stores whose
	// arguments are all integers: line ends (i64, scanned in place with
	// scan), the text (u8, lineMax bytes a constraint), "" otherwise.
	lines, scan, text string
	lineMax           int64
	chunk             string // the parameter of the most lines formatted at once

	cap   string   // the capacity parameter
	query int      // constraints the query posts
	qargs []string // static buffers holding them
	// Per step: the snapshot of top and the size of the hash tables (the
	// least power of two not below it), region locals.
	n, hs   string
	indices []*index
	exts    []*extremum
	// listed: some plan owns this store's constraints; then list holds
	// the slots of the live constraints of the step and count (i32[1])
	// their number, and owner loops walk the list, not every slot
	// (Note [Live lists]). ranked: some rule pairs them by rank (Note
	// [Pairing]); then rank holds each slot's place in the list.
	listed, ranked    bool
	wide              bool // some index of it is whole
	rank, list, count string
}

// chunkRef is the most lines the store formats at once: its capacity,
// at most TEXT_LINES.
func (s *store) chunkRef(b *ir.Builder) ir.Expr {
	return b.Builtin(ir.Min, s.capRef(b), b.Builtin(ir.Max, b.P(s.chunk), b.I32(1)))
}

// textLen is the length of the store's text buffer.
func (s *store) textLen(b *ir.Builder) ir.Expr {
	return b.Bin(ir.Mul, b.Cast(ir.I64, s.chunkRef(b)), b.I64(s.lineMax))
}

func (s *store) capRef(b *ir.Builder) ir.Expr { return b.P(s.cap) }
func (s *store) nRef(b *ir.Builder) ir.Expr   { return b.Local(s.n, ir.I32) }

// arg reads argument i of slot.
func (s *store) arg(b *ir.Builder, i int, slot ir.Expr) ir.Expr { return b.Ld(s.args[i], slot) }

// Default capacities: at least this many slots, or this many times the
// query's constraints of the type.
const (
	minCapacity    = 4096
	queryCapFactor = 4
)

// declareStores declares the buffers and parameters of every store, and
// static buffers with the query's constraints.
func (l *lowerer) declareStores() {
	b := l.builder()
	counts := map[*ctype][]fact{}
	for _, f := range l.facts {
		counts[f.ct] = append(counts[f.ct], f)
	}
	removed := map[*ctype]bool{}
	for _, r := range l.prog.rules {
		for _, h := range r.removed {
			removed[h.ct] = true
		}
	}
	l.textLines = l.param("TEXT_LINES", textChunk)
	for _, ct := range l.prog.types {
		base := identifier(ct.name, "c") + fmt.Sprint(ct.arity)
		s := &store{ct: ct, base: base, query: len(counts[ct]), chunk: l.textLines}
		capacity := max(minCapacity, queryCapFactor*int64(s.query))
		s.cap = l.param("CAP_"+base, capacity)
		for i, t := range ct.args {
			s.args = append(s.args, l.name(fmt.Sprintf("%s_a%d", base, i)))
			l.buffer(s.args[i], t, s.capRef(b), ir.Scratch)
		}
		s.state = l.name(base + "_st")
		s.born = l.name(base + "_born")
		s.top = l.name(base + "_top")
		s.taken = l.name(base + "_taken")
		l.buffer(s.state, ir.I32, s.capRef(b), ir.Scratch)
		l.buffer(s.born, ir.I32, s.capRef(b), ir.Scratch)
		l.buffer(s.top, ir.I32, b.I32(1), ir.Scratch).Bound = s.cap
		l.buffer(s.taken, ir.I32, b.I32(1), ir.Scratch)
		s.live = l.name(base + "_live")
		// live, cursor, unsorted: a count of live slots, a position in the
		// packed arrays of CAP entries, a flag; all in [0, CAP] (Note
		// [Bounded buffers] in package ir).
		l.buffer(s.live, ir.I32, b.I32(3), ir.Scratch).Bound = s.cap
		for i, t := range ct.args {
			s.packed = append(s.packed, l.name(fmt.Sprintf("%s_p%d", base, i)))
			l.buffer(s.packed[i], t, s.capRef(b), ir.Scratch)
		}
		if ct.arity > 0 {
			// A power of two not below the live count, padded.
			s.order = l.name(base + "_ord")
			l.buffer(s.order, ir.I32, b.Bin(ir.Mul, s.capRef(b), b.I32(2)), ir.Scratch)
		}
		if ct.arity > 0 && !slices.Contains(ct.args, ir.F64) {
			// name(, then 20 bytes an integer, commas, )\n
			s.lineMax = int64(len(atomLiteral(ct.name))+1+2) + int64(ct.arity)*21
			s.lines = l.name(base + "_lines")
			s.scan = l.name(base + "_scan")
			s.text = l.name(base + "_text")
			l.buffer(s.lines, ir.I64, s.chunkRef(b), ir.Scratch)
			l.buffer(s.scan, ir.I64, s.chunkRef(b), ir.Scratch)
			l.buffer(s.text, ir.U8, s.textLen(b), ir.Scratch)
		}
		if removed[ct] {
			s.claim = l.name(base + "_cl")
			l.buffer(s.claim, ir.U64, s.capRef(b), ir.Scratch)
		}
		l.queryBuffers(s, counts[ct])
		l.stores[ct] = s
	}
	l.procs = l.param("PROCS", defaultProcs)
	l.maxSteps = l.param("MAXSTEPS", defaultMaxSteps)
	l.rounds = l.param("ROUNDS", maxRounds)
}

// defaultProcs is the default number of processors of the region; every
// loop over a store strides by it.
const defaultProcs = 4096

// queryBuffers declares static buffers with the query's constraints of
// one type, one per argument, in query order.
func (l *lowerer) queryBuffers(s *store, facts []fact) {
	b := l.builder()
	if len(facts) == 0 {
		return
	}
	for i, t := range s.ct.args {
		name := l.name(fmt.Sprintf("q_%s_a%d", s.base, i))
		b := l.buffer(name, t, b.I32(int64(len(facts))), ir.Static)
		for _, f := range facts {
			v := f.vals[i]
			if t == ir.F64 {
				b.Init = append(b.Init, ir.FloatBits(ir.F64, v.float()))
			} else {
				b.Init = append(b.Init, ir.IntBits(ir.I64, v.i))
			}
		}
		s.qargs = append(s.qargs, name)
	}
}

// index is a hash index of a store on some argument positions, rebuilt
// every step: head[h] is the last slot inserted with hash h and next[s]
// the slot inserted before s with the same hash, -1 ending a chain.
type index struct {
	s          *store
	pos        []int
	head, next string
	// whole: some plan walks whole chains of it (a chained owner's search
	// or propagation); then its table has twice the buckets and its heads
	// mark chains of two or more (Note [Indices]).
	whole bool
}

// extremum holds, per step, the least key of one argument over the live
// constraints of a store (the key is the value, or its negation for the
// greatest): cells [least key, least slot with it, greatest slot with
// it, next larger key]. Note [Indices] says how matching uses it.
type extremum struct {
	s    *store
	pos  int
	max  bool // the key is the negated value: the greatest value is wanted
	buf  string
	used bool
	// search: a join step searches by it (cells as above); otherwise it
	// is only a bound, in boundCells cells (Note [Guard bounds]).
	search bool
	b      *ir.Buffer
}

// indexOn returns the index of s on the positions pos, making it.
func (l *lowerer) indexOn(s *store, pos []int) *index {
	b := l.builder()
	for _, ix := range s.indices {
		if slices.Equal(ix.pos, pos) {
			return ix
		}
	}
	k := len(s.indices)
	ix := &index{s: s, pos: pos, head: l.name(fmt.Sprintf("%s_h%d", s.base, k)), next: l.name(fmt.Sprintf("%s_n%d", s.base, k))}
	l.buffer(ix.head, ir.I32, b.Bin(ir.Mul, b.Cast(ir.I64, s.capRef(b)), b.I64(4)), ir.Scratch)
	l.buffer(ix.next, ir.I32, s.capRef(b), ir.Scratch)
	s.indices = append(s.indices, ix)
	return ix
}

// extremumOn returns the extremum of s at position pos, making it.
func (l *lowerer) extremumOn(s *store, pos int, isMax bool) *extremum {
	b := l.builder()
	for _, x := range s.exts {
		if x.pos == pos && x.max == isMax {
			x.search = true
			x.b.Len = b.I32(4)
			return x
		}
	}
	x := &extremum{s: s, pos: pos, max: isMax, buf: l.name(fmt.Sprintf("%s_x%d", s.base, len(s.exts))), search: true}
	x.b = l.buffer(x.buf, ir.I64, b.I32(4), ir.Scratch)
	s.exts = append(s.exts, x)
	return x
}

// hash combines key values into a u64: linear in the last key, so that
// consecutive keys fall into consecutive buckets and lookups by
// neighbouring threads touch neighbouring memory; the high bits are
// folded into the low ones, so that keys with a large common stride
// spread too.
func hash(b *ir.Builder, keys []ir.Expr) ir.Expr {
	var h ir.Expr
	for _, k := range keys {
		kv := b.Cast(ir.U64, toInt(b, k))
		if h == nil {
			h = kv
			continue
		}
		h = b.Bin(ir.Add, b.Bin(ir.Mul, h, b.U64(0x9E3779B97F4A7C15)), kv)
	}
	return b.Bin(ir.Xor, h, b.Bin(ir.Shr, h, b.U64(17)))
}

// toInt makes a key value an integer: floats hash by their integer part.
func toInt(b *ir.Builder, e ir.Expr) ir.Expr {
	if e.Type().IsFloat() {
		return b.Cast(ir.I64, e)
	}
	return e
}

// bucket maps a hash to a bucket of the store's table for this step,
// whose size is a power of two.
func (s *store) bucket(b *ir.Builder, h ir.Expr) ir.Expr {
	return b.Cast(ir.I32, b.Bin(ir.And, h, b.Cast(ir.U64, b.Bin(ir.Sub, b.Local(s.hs, ir.I32), b.I32(1)))))
}

// keyOf is the extremum key of a value.
func (x *extremum) keyOf(b *ir.Builder, v ir.Expr) ir.Expr {
	if x.max {
		return b.Neg(v)
	}
	return v
}
