package trs

import "gpuc/ir"

// Note [Wide and one-processor steps]
//
// trs_step and trs_derive are built with a parameter one (Note [One
// processor's walks]) that only the one-block kernel of one thread sets.
// Passed at run time, it kept the one-processor paths (the fuel's
// select, the takes from the garbage, the walk that goes on upwards) in
// the wide kernels' step, with their live values across the walk. And a
// step out of line (Note [Large device functions out of line] in
// backends/cuda) was one function for all its callers: ptxas fitted it
// to the tightest of their budgets, trs_small's 128 registers (blocks
// of 512), where tree merge sort's spilled 452 bytes with the checks
// and its wide kernels, blocks of 256, were held to 128 too (H100,
// 2026-11-27 00:35).
//
// So each is instantiated twice: trs_step and trs_derive with one a
// constant false, for the wide kernels and the region, whose calls pass
// false; trs_step1 and trs_derive1, as they were built, with one a
// parameter, for trs_small, which passes whether its block is one
// thread. The simplify pass drops the paths that the constant decides.
// Each call runs the code it ran before, so the normal forms, rewrite
// counts and messages are the same; the program carries a second copy
// of the step.

// oneSuffix names the instantiation that keeps the parameter one.
const oneSuffix = "1"

// splitOne instantiates trs_step and trs_derive for one false, and keeps
// them with the parameter one as trs_step1 and trs_derive1 (Note [Wide
// and one-processor steps]). A world has no parameter one.
func (l *lowerer) splitOne() {
	if l.world {
		return
	}
	for _, name := range []string{"trs_step", "trs_derive"} {
		f := l.m.Func(name)
		one := &ir.Func{Pos: f.Pos, Kind: f.Kind, Name: name + oneSuffix, Params: f.Params, Result: f.Result, Body: ir.CloneStmts(f.Body)}
		f.Params = nil
		for _, p := range one.Params {
			if p.Name != "one" {
				f.Params = append(f.Params, &ir.Field{Pos: p.Pos, Name: p.Name, Type: p.Type})
			}
		}
		fixOne(f.Body)
		for i, g := range l.m.Funcs {
			if g == f {
				l.m.Funcs = append(l.m.Funcs[:i+1], append([]*ir.Func{one}, l.m.Funcs[i+1:]...)...)
				break
			}
		}
	}
	for _, f := range l.m.Funcs {
		ir.RewriteAllExprs(f.Body, pickOne) // calls in expressions
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if cs, ok := s.(*ir.CallStmt); ok {
				pickOne(cs.Call)
			}
			return true
		})
	}
}

// fixOne sets the parameter one to false in body.
func fixOne(body []ir.Stmt) {
	ir.RewriteAllExprs(body, func(e ir.Expr) ir.Expr {
		if x, ok := e.(*ir.Var); ok && x.Name == "one" {
			c := ir.BoolConst(false)
			c.Pos = x.Pos
			return c
		}
		return e
	})
}

// pickOne points a call of trs_step or trs_derive, whose last argument
// is one, at its instantiation: the wide one, without the argument,
// where it is the constant false, else the one that keeps it.
func pickOne(e ir.Expr) ir.Expr {
	c, ok := e.(*ir.Call)
	if !ok || (c.Func != "trs_step" && c.Func != "trs_derive") || len(c.Args) == 0 {
		return e
	}
	if k, ok := c.Args[len(c.Args)-1].(*ir.Const); ok && k.T == ir.Bool && k.Bits == 0 {
		c.Args = c.Args[:len(c.Args)-1]
	} else {
		c.Func += oneSuffix
	}
	return e
}
