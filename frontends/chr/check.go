package chr

import (
	"gpuc/internal/diag"
	"gpuc/ir"
)

// checker resolves heads against the declarations, reads guards and
// bodies into typed form, and infers argument types (Note [Types]).
type checker struct {
	errs *diag.List
	prog *program
	// cells holds one type cell per argument position of each type.
	cells map[*ctype][]*cell
}

// Note [Types]
//
// Every argument position of a constraint type holds values of one type,
// int (i64) or float (f64), so that a store is a structure of typed
// arrays. Declarations fix a position's type (+int, natural, float, ...);
// otherwise it is inferred: head variables share their position's type,
// body arguments and query values give theirs, and `V is E` gives V the
// type of E (float as soon as an operand is a float, or for /). A position
// that nothing decides is int. A position that would need both is an
// error, since SWI-Prolog would then store an integer where gpuc stores a
// float, and print it differently.

func (c *checker) errorf(pos diag.Pos, format string, args ...any) { c.errs.Add(pos, format, args...) }

// check checks the rules; facts are the query's constraints, whose values
// type the positions they fill.
func (c *checker) check(facts []fact) {
	c.cells = map[*ctype][]*cell{}
	for _, ct := range c.prog.types {
		cs := make([]*cell, ct.arity)
		for i := range cs {
			cs[i] = &cell{t: ct.decl[i]}
		}
		c.cells[ct] = cs
	}
	for _, r := range c.prog.rules {
		c.rule(r)
	}
	c.typeFacts(facts)
	if len(*c.errs) > 0 {
		return
	}
	c.infer()
	for _, ct := range c.prog.types {
		ct.args = make([]ir.Type, ct.arity)
		for i, cl := range c.cells[ct] {
			if ct.args[i] = cl.find().t; ct.args[i] == ir.Invalid {
				ct.args[i] = ir.I64
				cl.find().t = ir.I64
			}
		}
	}
	for _, r := range c.prog.rules {
		c.typecheck(r)
	}
}

// lookup resolves a constraint by name and arity.
func (c *checker) lookup(pos diag.Pos, name string, arity int) *ctype {
	ct, ok := c.prog.byKey[key(name, arity)]
	if !ok {
		c.errorf(pos, "%s is not a declared constraint (declare it with :- chr_constraint %s.)", key(name, arity), key(name, arity))
		return nil
	}
	return ct
}

// rule resolves heads, binds variables and reads the guard and body.
func (c *checker) rule(r *rule) {
	r.vars = map[string]*ruleVar{}
	for _, h := range r.heads() {
		if ct := c.lookup(h.pos, h.ct.name, h.ct.arity); ct != nil {
			h.ct = ct
			c.headArgs(r, h)
		} else {
			h.ct = nil
		}
	}
	for _, g := range r.guard {
		if cmp := c.guardGoal(r, g); cmp != nil {
			r.guards = append(r.guards, cmp)
		}
	}
	for _, g := range r.body {
		if bg := c.bodyGoal(r, g); bg != nil {
			r.goals = append(r.goals, bg)
		}
	}
}

// headArgs binds the variables of a head and types its literals.
func (c *checker) headArgs(r *rule, h *head) {
	for i, a := range h.args {
		pc := c.cells[h.ct][i]
		switch a := a.(type) {
		case *variable:
			if a.name == "_" {
				continue
			}
			v, ok := r.vars[a.name]
			if !ok {
				v = &ruleVar{name: a.name, pos: a.pos, cell: &cell{}}
				r.vars[a.name] = v
			}
			c.union(a.pos, v.cell, pc)
		case *integer:
			c.bigCheck(a)
			c.setType(a.pos, pc, ir.I64)
		case *float:
			c.setType(a.pos, pc, ir.F64)
		default:
			c.errorf(a.at(), "head argument %s is outside the subset: heads match variables and numbers (ground terms other than numbers are not supported)", show(a))
		}
	}
}

func (c *checker) bigCheck(a *integer) {
	if a.big {
		c.errorf(a.pos, "integer does not fit in 64 bits")
	}
}

// union merges two type cells.
func (c *checker) union(pos diag.Pos, a, b *cell) {
	a, b = a.find(), b.find()
	if a == b {
		return
	}
	switch {
	case a.t == ir.Invalid:
		a.parent = b
	case b.t == ir.Invalid || a.t == b.t:
		b.parent = a
	default:
		c.errorf(pos, "this value would be both an int and a float")
	}
}

func (c *checker) setType(pos diag.Pos, cl *cell, t ir.Type) {
	cl = cl.find()
	switch cl.t {
	case ir.Invalid:
		cl.t = t
	case t:
	default:
		c.errorf(pos, "type mismatch: %s here, but %s elsewhere at this argument", typeWord(t), typeWord(cl.t))
	}
}

func typeWord(t ir.Type) string {
	if t == ir.F64 {
		return "a float"
	}
	return "an integer"
}

// guardGoal reads one guard conjunct.
func (c *checker) guardGoal(r *rule, g term) *comparison {
	gc, ok := g.(*compound)
	if !ok {
		c.errorf(g.at(), "guard %s is outside the subset", show(g))
		return nil
	}
	switch {
	case gc.name == "true" && len(gc.args) == 0:
		return nil
	case len(gc.args) == 2 && isComparison(gc.name):
		x, y := c.arith(r, gc.args[0]), c.arith(r, gc.args[1])
		if x == nil || y == nil {
			return nil
		}
		return &comparison{pos: gc.pos, op: gc.name, x: x, y: y}
	case gc.name == "=" && len(gc.args) == 2:
		c.errorf(gc.pos, "unification (=) is outside the subset: guards test ground values with == or =:=")
	case gc.name == "is" && len(gc.args) == 2:
		if v, ok := gc.args[0].(*variable); ok && r.vars[v.name] == nil {
			c.errorf(gc.pos, "is/2 in a guard binds a variable, which the subset does not allow; compute it in the body")
			return nil
		}
		// N is E with N known tests E's value against N, as unification
		// of numbers: same type and value.
		x, y := c.arith(r, gc.args[0]), c.arith(r, gc.args[1])
		if x == nil || y == nil {
			return nil
		}
		return &comparison{pos: gc.pos, op: "==", x: x, y: y}
	}
	if gc.name != "=" && gc.name != "is" {
		c.errorf(gc.pos, "guard %s is outside the subset: guards are arithmetic comparisons (< =< > >= =:= =\\=) and == or \\== on ground values", predName(g))
	}
	return nil
}

func isComparison(op string) bool {
	switch op {
	case "<", ">", "=<", ">=", "=:=", "=\\=", "==", "\\==":
		return true
	}
	return false
}

// bodyGoal reads one body conjunct.
func (c *checker) bodyGoal(r *rule, g term) bodyGoal {
	switch g := g.(type) {
	case *compound:
		switch {
		case g.name == "true" && len(g.args) == 0:
			return nil
		case g.name == "is" && len(g.args) == 2:
			return c.isGoal(r, g)
		case g.name == "=" && len(g.args) == 2:
			c.errorf(g.pos, "unification (=) in a body is outside the subset: it would bind or compare non-ground terms; use V is Expr")
			return nil
		case g.name == "," || g.name == ";" || g.name == "->" || g.name == "|" || g.name == "\\+":
			c.errorf(g.pos, "control construct %s in a body is outside the subset", g.name)
			return nil
		}
		ct, ok := c.prog.byKey[key(g.name, len(g.args))]
		if !ok {
			c.errorf(g.pos, "%s is not a CHR constraint; calling Prolog predicates is outside the subset", key(g.name, len(g.args)))
			return nil
		}
		p := &post{pos: g.pos, ct: ct}
		for i, a := range g.args {
			x := c.constraintArg(r, a)
			if x == nil {
				continue
			}
			if v, ok := x.(*aVar); ok {
				c.union(a.at(), v.v.cell, c.cells[ct][i])
			}
			p.args = append(p.args, x)
		}
		if len(p.args) != len(g.args) {
			return nil
		}
		return p
	case *foreign:
		c.errorf(g.pos, "%s is outside the CHR subset", g.what)
	default:
		c.errorf(g.at(), "body goal %s is outside the subset", show(g))
	}
	return nil
}

// constraintArg reads an argument of a body constraint: a bound variable
// or a number. Arithmetic belongs in is/2, since Prolog would store the
// unevaluated term.
func (c *checker) constraintArg(r *rule, a term) arith {
	switch a := a.(type) {
	case *variable, *integer, *float:
		return c.arith(r, a)
	case *compound:
		if len(a.args) == 0 {
			c.errorf(a.at(), "constraint argument %s is an atom: atoms are outside the subset, whose constraints hold numbers", show(a))
			return nil
		}
	}
	c.errorf(a.at(), "constraint argument %s is not a number: Prolog would store the term unevaluated; compute it first with V is %s", show(a), show(a))
	return nil
}

// isGoal reads `V is E`, binding V.
func (c *checker) isGoal(r *rule, g *compound) bodyGoal {
	lhs, ok := g.args[0].(*variable)
	if !ok || lhs.name == "_" {
		c.errorf(g.pos, "the left side of is/2 must be a fresh variable")
		return nil
	}
	e := c.arith(r, g.args[1])
	if _, bound := r.vars[lhs.name]; bound {
		c.errorf(lhs.pos, "%s is already bound; is/2 would test it, not bind it (compare in the guard instead)", lhs.name)
		return nil
	}
	if e == nil {
		return nil
	}
	v := &ruleVar{name: lhs.name, pos: lhs.pos, cell: &cell{}, is: e}
	r.vars[lhs.name] = v
	return &bind{pos: g.pos, v: v, e: e}
}

// arith reads an arithmetic expression over bound variables.
func (c *checker) arith(r *rule, t term) arith {
	switch t := t.(type) {
	case *variable:
		v, ok := r.vars[t.name]
		if !ok || t.name == "_" {
			c.errorf(t.pos, "variable %s is unbound here: the subset keeps every constraint ground (non-ground unification is not supported)", t.name)
			return nil
		}
		return &aVar{pos: t.pos, v: v}
	case *integer:
		c.bigCheck(t)
		return &aNum{pos: t.pos, t: ir.I64, i: t.val}
	case *float:
		return &aNum{pos: t.pos, t: ir.F64, f: t.val}
	case *compound:
		return c.arithOp(r, t)
	case *foreign:
		c.errorf(t.pos, "%s is not an arithmetic expression", t.what)
	}
	return nil
}

func (c *checker) arithOp(r *rule, t *compound) arith {
	n, ok := arithOps[t.name]
	if t.name == "-" && len(t.args) == 1 || t.name == "+" && len(t.args) == 1 {
		n, ok = 1, true
	}
	if !ok || n != len(t.args) {
		c.errorf(t.pos, "%s is not an evaluable function of the subset (+ - * / // mod rem div min max abs float truncate integer)", predName(t))
		return nil
	}
	op := &aOp{pos: t.pos, op: t.name}
	if len(t.args) == 1 && (t.name == "-" || t.name == "+") {
		op.op = "neg"
		if t.name == "+" {
			op.op = "pos"
		}
	}
	for _, a := range t.args {
		x := c.arith(r, a)
		if x == nil {
			return nil
		}
		op.args = append(op.args, x)
	}
	return op
}

// infer propagates types until nothing changes.
func (c *checker) infer() {
	for changed := true; changed; {
		changed = false
		for _, r := range c.prog.rules {
			for _, g := range r.goals {
				changed = c.inferGoal(g) || changed
			}
		}
	}
}

func (c *checker) inferGoal(g bodyGoal) bool {
	switch g := g.(type) {
	case *bind:
		if t := typeOf(g.e); t != ir.Invalid && g.v.cell.find().t == ir.Invalid {
			g.v.cell.find().t = t
			return true
		}
	case *post:
		changed := false
		for i, a := range g.args {
			pc := c.cells[g.ct][i].find()
			if t := typeOf(a); t != ir.Invalid && pc.t == ir.Invalid {
				pc.t = t
				changed = true
			}
		}
		return changed
	}
	return false
}

// typecheck checks a rule once all types are known: every value lands in
// a position of its own type, and int-only operators get ints.
func (c *checker) typecheck(r *rule) {
	for _, v := range r.vars {
		if v.cell.find().t == ir.Invalid {
			v.cell.find().t = ir.I64
		}
	}
	for _, g := range r.guards {
		c.typeExpr(g.x)
		c.typeExpr(g.y)
	}
	for _, g := range r.goals {
		switch g := g.(type) {
		case *bind:
			c.typeExpr(g.e)
			if t := typeOf(g.e); t != g.v.cell.find().t {
				c.errorf(g.pos, "%s is %s here but %s where it is used", g.v.name, typeWord(t), typeWord(g.v.cell.find().t))
			}
		case *post:
			for i, a := range g.args {
				c.typeExpr(a)
				if t, want := typeOf(a), g.ct.args[i]; t != want {
					c.errorf(a.at(), "argument %d of %s is %s, but %s elsewhere", i+1, g.ct, typeWord(t), typeWord(want))
				}
			}
		}
	}
}

// typeExpr reports operators applied to the wrong types.
func (c *checker) typeExpr(a arith) {
	op, ok := a.(*aOp)
	if !ok {
		return
	}
	for _, x := range op.args {
		c.typeExpr(x)
	}
	switch {
	case intOnly[op.op]:
		for _, x := range op.args {
			if typeOf(x) != ir.I64 {
				c.errorf(op.pos, "%s takes integers", op.op)
				return
			}
		}
	case op.op == "/":
		if typeOf(op.args[0]) == ir.I64 && typeOf(op.args[1]) == ir.I64 {
			c.errorf(op.pos, "/ on two integers gives an integer or a float depending on the values in SWI-Prolog; use // for integer division or make an operand a float")
		}
	case op.op == "min" || op.op == "max":
		if typeOf(op.args[0]) != typeOf(op.args[1]) {
			c.errorf(op.pos, "%s of an integer and a float has a value-dependent type in SWI-Prolog; convert with float/1 first", op.op)
		}
	case op.op == "truncate" || op.op == "integer":
		if typeOf(op.args[0]) != ir.F64 {
			c.errorf(op.pos, "%s takes a float", op.op)
		}
	}
}
