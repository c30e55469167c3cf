package trs

import (
	"fmt"

	"gpuc/ir"
)

// Note [Wide and one-processor steps]
//
// trs_step and trs_derive are built with a parameter one (Note [One
// processor's walks]) that only the one-block kernel of one thread sets.
// Passed at run time, it kept the one-processor paths (the fuel's
// select, the takes from the garbage, the walk that goes on upwards,
// their live values across the walk) in the wide kernels' step wherever
// nvcc did not inline trs_derive's constant into it: always for a step
// out of line (Note [Large device functions out of line] in
// backends/cuda), as tree merge sort's and merge sort's are.
//
// So each is instantiated twice, with one a constant: trs_step and
// trs_derive with one false, for the wide kernels, the region and a
// one-block kernel of several threads; trs_step1 and trs_derive1 with
// one true, which trs_small calls where its block is one thread. The
// simplify pass drops the paths that the constant decides. Each call
// runs the code it ran before, so the normal forms, rewrite counts and
// messages are the same.
//
// trs_small calls both. Its blocks of 512 leave a function 128
// registers, and ptxas fits a function out of line to the tightest
// budget of its callers. Called by the wide kernels (blocks of 256)
// alone, trs_step could take up to 255 (tree merge sort's takes 254
// where ptxas compiles it apart, Note [Large device functions out of
// line]) and halve their occupancy; shared with trs_small it keeps 128,
// as before. (Not measured: 3f42058 tried it, 8353551 took it back.)

// oneSuffix names the one-processor instantiation of a function.
const oneSuffix = "1"

// splitOne instantiates trs_step and trs_derive for one false and for
// one true, and makes every call pick one by its argument one (Note [Wide
// and one-processor steps]). A world has no parameter one.
func (l *lowerer) splitOne() error {
	if l.world {
		return nil
	}
	for _, name := range []string{"trs_step", "trs_derive"} {
		f := l.m.Func(name)
		one := &ir.Func{Pos: f.Pos, Kind: f.Kind, Name: name + oneSuffix, Result: f.Result, Body: ir.CloneStmts(f.Body)}
		for _, p := range f.Params {
			if p.Name != "one" {
				one.Params = append(one.Params, &ir.Field{Pos: p.Pos, Name: p.Name, Type: p.Type})
			}
		}
		fixOne(one.Body, true)
		fixOne(f.Body, false)
		f.Params = append([]*ir.Field(nil), one.Params...)
		for i, g := range l.m.Funcs {
			if g == f {
				l.m.Funcs = append(l.m.Funcs[:i+1], append([]*ir.Func{one}, l.m.Funcs[i+1:]...)...)
				break
			}
		}
	}
	for _, f := range l.m.Funcs {
		var err error
		if f.Body, err = pickOne(f.Body); err != nil {
			return err
		}
	}
	return nil
}

// fixOne sets the parameter one to v in body.
func fixOne(body []ir.Stmt, v bool) {
	ir.RewriteAllExprs(body, func(e ir.Expr) ir.Expr {
		if x, ok := e.(*ir.Var); ok && x.Name == "one" {
			c := ir.BoolConst(v)
			c.Pos = x.Pos
			return c
		}
		return e
	})
}

// pickOne rewrites the calls of trs_step and trs_derive, whose last
// argument is one: a constant picks the instantiation, and a call
// statement on another value becomes an if between the two. The
// lowering calls them so; a call inside an expression on a value that is
// not constant is an internal error.
func pickOne(body []ir.Stmt) ([]ir.Stmt, error) {
	var bad error
	split := func(c *ir.Call) (ir.Expr, bool) {
		if (c.Func != "trs_step" && c.Func != "trs_derive") || len(c.Args) == 0 {
			return nil, false
		}
		one := c.Args[len(c.Args)-1]
		c.Args = c.Args[:len(c.Args)-1]
		if k, ok := one.(*ir.Const); ok {
			if k.Bits != 0 {
				c.Func += oneSuffix
			}
			return nil, true
		}
		return one, true
	}
	body = ir.RewriteStmts(body, func(s ir.Stmt) []ir.Stmt {
		if cs, ok := s.(*ir.CallStmt); ok {
			if one, ok := split(cs.Call); ok && one != nil {
				c1 := ir.CloneExpr(cs.Call).(*ir.Call)
				c1.Func += oneSuffix
				return []ir.Stmt{&ir.If{Pos: cs.Pos, Cond: one, Then: []ir.Stmt{&ir.CallStmt{Pos: cs.Pos, Call: c1}}, Else: []ir.Stmt{cs}}}
			}
			return []ir.Stmt{s}
		}
		ir.RewriteStmtExprs(s, func(e ir.Expr) ir.Expr {
			if c, ok := e.(*ir.Call); ok {
				if one, ok := split(c); ok && one != nil && bad == nil {
					bad = fmt.Errorf("%s: internal error: a call of %s in an expression whose argument one is not constant", c.Pos, c.Func)
				}
			}
			return e
		})
		return []ir.Stmt{s}
	})
	return body, bad
}
