package chr

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"gpuc/ir"
)

// Note [Output]
//
// The program prints the final store one constraint per line, in Prolog
// syntax and in the standard order of terms, so that it can be compared
// with SWI-Prolog's store sorted by msort/2: constraints of lower arity
// first, then by name, then argument by argument (every position holds
// numbers of one type, compared by value). Integers print as %ld; floats
// as %.15e, which SWI-Prolog reads back and the test harness prints the
// same way. After the fixpoint the device counts each store's live
// constraints and packs them into arrays of their own: in slot order
// when no slot below the top is dead, else in any order (an atomic
// counter hands out places). If the packed constraints are not already
// in order, it sorts an index of them with a bitonic network (Note
// [Device sort] in package ir). A store of integer constraints is then
// formatted on the device as well (Note [Device formatting] in package
// ir), TEXT_LINES lines (default 2^20) at a time, each chunk by a region
// of its own, so that its buffers take that many lines, not the
// capacity; the host writes each chunk's text from the device buffer in
// one write (pipelined copies through page-locked memory on CUDA, Note
// [Writing from the device] in backends/runtime/gpuc_device.h);
// a store with float arguments is copied back packed and printed by the
// host with printf, in the index's order. No host pass over the store's
// slots, no sorting or formatting on the host for integer stores, and
// no backend knows about it.
//
// The packing, sorting and formatting run in regions of their own, after
// the fixpoint's, with min(PROCS, 2^16) processors (maxOutputProcs): a
// region as large as the fixpoint's (PROCS=2^20 for a dense store) is
// too large for one cooperative kernel, so each of its barriers became a
// launch, and a bitonic sort of 2^20 constraints and a scan of their
// lines took some 250 launches and 20 read-backs of a loop bound, where
// one cooperative kernel with grid syncs does (issue 18: primes' 1014
// launches). Their loops stride over the slots and lines, so the count
// of processors changes no result.

// printStores emits the host code that prints the final store, then the
// statistics, if asked for, to the standard error stream.
func (l *lowerer) printStores() []ir.Stmt {
	b := newBlock(l.m, l.pos)
	types := append([]*ctype(nil), l.prog.types...)
	sort.SliceStable(types, func(i, j int) bool {
		if types[i].arity != types[j].arity {
			return types[i].arity < types[j].arity
		}
		return types[i].name < types[j].name
	})
	for _, ct := range types {
		l.printStore(b, l.stores[ct])
	}
	if l.opts.Stats {
		b.Emit(l.printStats())
	}
	return b.stmts()
}

// printStats prints the statistics of --stats to the standard error
// stream: with STATS=1 (the default) as text, with STATS=2 as one JSON
// object on a line, {"steps": N, "claim_rounds": N, "firings": {"LABEL":
// N, ...}}, the rules in program order (docs/TOOLKIT.md); STATS=0 prints
// nothing.
func (l *lowerer) printStats() ir.Stmt {
	b := l.builder()
	p := l.param("STATS", 1)
	// The counters come back in two copies, not a read-back each.
	nFired := int64(len(l.prog.rules) + 1)
	hsteps, hfired := l.array("chr_hsteps", ir.I64, b.I64(2)), l.array("chr_hfired", ir.I64, b.I64(nFired))
	fetch := []ir.Stmt{
		&ir.Copy{Pos: l.pos, Dst: hsteps, DstOff: b.I32(0), Src: l.steps, SrcOff: b.I32(0), Count: b.I32(2)},
		&ir.Copy{Pos: l.pos, Dst: hfired, DstOff: b.I32(0), Src: l.fired, SrcOff: b.I32(0), Count: b.I32(nFired)},
	}
	steps, rounds := b.Ld(hsteps, b.I32(0)), b.Ld(hsteps, b.I32(1))
	eprintf := func(pos ir.Pos, format string, args ...ir.Expr) ir.Stmt {
		return &ir.Printf{Pos: pos, Stderr: true, Format: format, Args: args}
	}
	text := []ir.Stmt{eprintf(l.pos, "%% steps: %ld\n", steps), eprintf(l.pos, "%% claim rounds: %ld\n", rounds)}
	json := []ir.Stmt{eprintf(l.pos, "{\"steps\": %ld, \"claim_rounds\": %ld, \"firings\": {", steps, rounds)}
	for i, r := range l.prog.rules {
		rb := b.At(r.pos)
		fired := rb.Ld(hfired, rb.I32(int64(r.index)))
		label := strings.ReplaceAll(r.label(), "%", "%%")
		text = append(text, eprintf(r.pos, "%% "+label+": %ld firings\n", fired))
		sep := ", "
		if i == 0 {
			sep = ""
		}
		json = append(json, eprintf(r.pos, sep+strings.ReplaceAll(jsonString(r.label()), "%", "%%")+": %ld", fired))
	}
	json = append(json, eprintf(l.pos, "}}\n"))
	param := b.P(p)
	return &ir.If{Pos: l.pos, Cond: b.Bin(ir.Ne, param, b.I32(0)), Then: append(fetch,
		&ir.If{Pos: l.pos, Cond: b.Bin(ir.Eq, param, b.I32(2)), Then: json, Else: text})}
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// printStore copies one store's packed live constraints and their sorted
// index back and prints them in that order.
func (l *lowerer) printStore(b *block, s *store) {
	b = b.at(s.ct.pos)
	live := b.decl(l.locals.fresh("live_"+s.base), ir.I32, b.Ld(s.live, b.I32(0)))
	if s.text != "" {
		// Formatted on the device, textChunk lines at a time: a region
		// writes the chunk's text, whose length is its last line's end,
		// and the host writes it from the device buffer.
		c := b.decl(l.locals.fresh("chunk"), ir.I32, b.I32(0))
		body := b.sub()
		n := body.decl(l.locals.fresh("lines_"+s.base), ir.I32, b.Builtin(ir.Min, s.chunkRef(b.Builder), b.Bin(ir.Sub, live, c)))
		region := body.sub()
		l.format(region, s, c, n)
		body.Emit(&ir.Region{Pos: b.Pos, Procs: l.outputProcs(b.Builder), Body: region.stmts()})
		bytes := body.decl(l.locals.fresh("bytes_"+s.base), ir.I64, b.Ld(s.lines, b.Bin(ir.Sub, n, b.I32(1))))
		body.Emit(&ir.Write{Pos: b.Pos, Array: s.text, Count: bytes})
		body.Set(c.Name, b.Bin(ir.Add, c, n))
		b.while(b.Bin(ir.Lt, c, live), body.stmts())
		return
	}
	var hargs []string
	for i, t := range s.ct.args {
		hargs = append(hargs, l.array(fmt.Sprintf("%s_ha%d", s.base, i), t, s.capRef(b.Builder)))
	}
	for i, h := range hargs {
		b.Emit(&ir.Copy{Pos: b.Pos, Dst: h, DstOff: b.I32(0), Src: s.packed[i], SrcOff: b.I32(0), Count: live})
	}
	jn := l.locals.fresh("j")
	j := b.Local(jn, ir.I32)
	format := atomText(s.ct.name)
	var args []ir.Expr
	if s.ct.arity > 0 {
		idx := l.array(s.base+"_idx", ir.I32, s.capRef(b.Builder))
		b.Emit(&ir.Copy{Pos: b.Pos, Dst: idx, DstOff: b.I32(0), Src: s.order, SrcOff: b.I32(0), Count: live})
		slot := b.Ld(idx, j)
		var parts []string
		for a, t := range s.ct.args {
			if t == ir.F64 {
				parts = append(parts, "%.15e")
			} else {
				parts = append(parts, "%ld")
			}
			args = append(args, b.Ld(hargs[a], slot))
		}
		format += "(" + strings.Join(parts, ",") + ")"
	}
	b.Emit(countLoop(b, jn, live, []ir.Stmt{&ir.Printf{Pos: b.Pos, Format: strings.ReplaceAll(format, "%%", "%%%%") + "\n", Args: args}}))
}

// textChunk is the default of TEXT_LINES, the most lines a store formats
// on the device at once (Note [Output]): its text buffer holds this many
// lines, not the store's capacity.
const textChunk = 1 << 20

// format writes the lines from first (below n of them) of a store's
// sorted live constraints as text into its text buffer, as printStore's
// printf would print them (Note [Device formatting] in package ir): each
// line's length, their prefix sums, then each line's bytes from the end
// of the line before. It is a region's body.
func (l *lowerer) format(b *block, s *store, first, n ir.Expr) {
	name := atomLiteral(s.ct.name)
	args := func(b *block, j ir.Expr) []ir.Expr {
		p := b.decl(l.locals.fresh("fp"), ir.I32, b.Ld(s.order, b.Bin(ir.Add, first, j)))
		var out []ir.Expr
		for a := range s.packed {
			out = append(out, b.Ld(s.packed[a], p))
		}
		return out
	}
	l.forSlots(b, n, func(b *block, j ir.Expr) {
		var size ir.Expr = b.I64(int64(len(name) + 1 + len(s.packed) + 1))
		for _, x := range args(b, j) {
			size = b.Bin(ir.Add, size, ir.DecimalLen(b.Pos, x))
		}
		b.Store(s.lines, j, size)
	})
	b.Barrier(true)
	b.Emit(ir.ScanNetwork(b.Pos, s.lines, s.scan, ir.I64, n, l.locals.fresh)...)
	l.forSlots(b, n, func(b *block, j ir.Expr) {
		xs := args(b, j)
		at := l.locals.fresh("at")
		b.decl(at, ir.I64, b.Sel(b.Bin(ir.Gt, j, b.I32(0)), b.Ld(s.lines, b.Bin(ir.Sub, j, b.I32(1))), b.I64(0)))
		b.Emit(ir.PutText(b.Pos, s.text, at, name+"(")...)
		for a, x := range xs {
			if a > 0 {
				b.Emit(ir.PutText(b.Pos, s.text, at, ",")...)
			}
			b.Emit(ir.PutDecimal(b.Pos, s.text, at, x, l.locals.fresh)...)
		}
		b.Emit(ir.PutText(b.Pos, s.text, at, ")\n")...)
	})
}

// countLoop is `for var i = 0; i < n; i = i + 1 { body }` at b's position.
func countLoop(b *block, i string, n ir.Expr, body []ir.Stmt) ir.Stmt {
	return &ir.For{Pos: b.Pos,
		Init: &ir.Decl{Pos: b.Pos, Name: i, T: ir.I32, Init: b.I32(0)},
		Cond: b.Bin(ir.Lt, b.Local(i, ir.I32), n),
		Post: &ir.Assign{Pos: b.Pos, Name: i, Value: b.Bin(ir.Add, b.Local(i, ir.I32), b.I32(1))},
		Body: body}
}

func (l *lowerer) array(base string, t ir.Type, n ir.Expr) string {
	name := l.name(base)
	l.m.Arrays = append(l.m.Arrays, &ir.Array{Pos: l.pos, Name: name, Elem: t, Len: n})
	return name
}

// atomText writes an atom as writeq/1 does, as a printf format.
func atomText(name string) string { return strings.ReplaceAll(atomLiteral(name), "%", "%%") }

// atomLiteral writes an atom as SWI-Prolog's writeq/1 does for the names
// gpuc meets: plain when it is a word that starts with a lower-case
// letter, or a run of symbol characters (~>, →) other than . and what
// opens a comment; quoted otherwise.
func atomLiteral(name string) string {
	if plainAtom(name) {
		return name
	}
	q := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(name)
	return "'" + q + "'"
}

func plainAtom(name string) bool {
	if name == "" || name == "." || strings.HasPrefix(name, "/*") {
		return false
	}
	word, symbol := true, true
	for i, r := range name {
		word = word && (i == 0 && unicode.IsLower(r) || i > 0 && (r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)))
		symbol = symbol && (strings.ContainsRune(`#$&*+-./:<=>?@^~\`, r) || r >= 0x80 && unicode.IsSymbol(r))
	}
	return word || symbol
}

func sortStrings(s []string) { sort.Strings(s) }
