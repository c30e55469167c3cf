package trs

import (
	"strings"

	"gpuc/internal/diag"
)

// Note [REC discipline]
// ~~~~~~~~~~~~~~~~~~~~~
// REC-2017 (corpus doc/rec-2017-language.txt) asks more of a specification
// than gpuc needs to rewrite it, so that it translates to every target
// language; REC-BAD holds the specifications that break these rules. gpuc
// refuses them for the rule they break, not for whatever its own
// rewriting would make of them:
//   - a sort and a constructor may not have names that differ only in
//     case (soundness-1: sort S, constructor s), which OCaml and Scala
//     cannot tell apart. The language document asks this of every pair
//     of names, but REC's own binarysearch (F, f) and sieve (Digit,
//     digit) break it for other pairs, so gpuc checks this one;
//   - a left-hand side applies an operation (OPNS) to constructor
//     patterns: no operation below its head (soundness-2: f(g(X)) with g
//     an operation), and no constructor at its head.

// recDiscipline reports the REC-2017 rules that f breaks (Note [REC
// discipline]).
func recDiscipline(f *file, errs *diag.List) {
	sorts := map[string]ident{}
	for _, s := range f.sorts {
		sorts[strings.ToLower(s.name)] = s.ident
	}
	cons := map[string]bool{}
	for _, op := range f.ops {
		cons[op.sym.name] = op.cons
		if s, ok := sorts[strings.ToLower(op.sym.name)]; ok && op.cons && s.name != op.sym.name {
			errs.Add(op.sym.pos, "constructor %s and sort %s (declared at %s) differ only in case, which REC-2017 forbids: OCaml and Scala cannot tell them apart", op.sym.name, s.name, s.pos)
		}
	}
	var pattern func(head string, t *term)
	pattern = func(head string, t *term) {
		if isCons, declared := cons[t.name]; declared && !isCons {
			errs.Add(t.pos, "the left-hand side of a rule of %s applies operation %s below its head; REC-2017's patterns are constructor terms", head, t.name)
			return
		}
		for _, a := range t.args {
			pattern(head, a)
		}
	}
	for _, r := range f.rules {
		if cons[r.lhs.name] {
			errs.Add(r.lhs.pos, "the left-hand side of a rule is headed by constructor %s; REC-2017's rules define operations (OPNS)", r.lhs.name)
			continue
		}
		for _, a := range r.lhs.args {
			pattern(r.lhs.name, a)
		}
	}
}
