package chr

import (
	"math"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// value is a ground number: an integer (i64) or a float (f64).
type value struct {
	t ir.Type
	i int64
	f float64
}

// fact is one constraint of the query: the initial store.
type fact struct {
	pos  diag.Pos
	ct   *ctype
	vals []value
}

// queryReader evaluates query goals at compile time: constraints with
// number arguments, `V is E` over numbers and bound variables, and true.
type queryReader struct {
	errs  *diag.List
	prog  *program
	env   map[string]value
	facts []fact
	depth int // the driver calls in progress
}

func (q *queryReader) errorf(pos diag.Pos, format string, args ...any) {
	q.errs.Add(pos, format, args...)
}

func (q *queryReader) goals(goals []term) {
	q.env = map[string]value{}
	for _, g := range goals {
		q.goal(g)
	}
}

func (q *queryReader) goal(g term) {
	c, ok := g.(*compound)
	if !ok {
		q.errorf(g.at(), "query goal %s is outside the subset: a query posts constraints", show(g))
		return
	}
	switch {
	case c.name == "true" && len(c.args) == 0:
	case q.prog.drivers[key(c.name, len(c.args))] != nil:
		q.driver(c)
	case c.name == "is" && len(c.args) == 2:
		v, ok := c.args[0].(*variable)
		if !ok || v.name == "_" {
			q.errorf(c.pos, "the left side of is/2 must be a fresh variable")
			return
		}
		if _, bound := q.env[v.name]; bound {
			q.errorf(v.pos, "%s is already bound", v.name)
			return
		}
		if x, ok := q.eval(c.args[1]); ok {
			q.env[v.name] = x
		}
	default:
		q.constraint(c)
	}
}

// maxDriverDepth bounds the nesting of driver calls, which a driver that
// calls itself would make endless.
const maxDriverDepth = 64

// driver runs the goals of a driver predicate that a query calls, with
// variables of their own: its arguments, bound to the values of the
// call's, which are numbers or arithmetic on bound variables.
func (q *queryReader) driver(c *compound) {
	k := key(c.name, len(c.args))
	if q.depth >= maxDriverDepth {
		q.errorf(c.pos, "%s calls drivers more than %d deep", k, maxDriverDepth)
		return
	}
	d := q.prog.drivers[k]
	callee := map[string]value{}
	for i, a := range c.args {
		x, ok := q.eval(a)
		if !ok {
			return
		}
		if v := d.args[0].(*compound).args[i].(*variable); v.name != "_" {
			callee[v.name] = x
		}
	}
	env := q.env
	q.env, q.depth = callee, q.depth+1
	for _, g := range conjuncts(d.args[1]) {
		q.goal(g)
	}
	q.env, q.depth = env, q.depth-1
}

// constraint posts one constraint of the query.
func (q *queryReader) constraint(c *compound) {
	ct, ok := q.prog.byKey[key(c.name, len(c.args))]
	if !ok {
		q.errorf(c.pos, "%s is not a CHR constraint; a query may post constraints, bind numbers with is/2, and call true", key(c.name, len(c.args)))
		return
	}
	f := fact{pos: c.pos, ct: ct}
	for _, a := range c.args {
		switch a := a.(type) {
		case *variable, *integer, *float:
		case *compound:
			if len(a.args) == 0 {
				q.errorf(a.at(), "constraint argument %s is an atom: atoms are outside the subset, whose constraints hold numbers", show(a))
			} else {
				q.errorf(a.at(), "constraint argument %s is not a number (compute it with is/2 first)", show(a))
			}
			return
		default:
			q.errorf(a.at(), "constraint argument %s is not a number (compute it with is/2 first)", show(a))
			return
		}
		v, ok := q.eval(a)
		if !ok {
			return
		}
		f.vals = append(f.vals, v)
	}
	q.facts = append(q.facts, f)
}

// eval evaluates a ground arithmetic expression as SWI-Prolog does.
func (q *queryReader) eval(t term) (value, bool) {
	switch t := t.(type) {
	case *integer:
		if t.big {
			q.errorf(t.pos, "integer does not fit in 64 bits")
			return value{}, false
		}
		return value{t: ir.I64, i: t.val}, true
	case *float:
		return value{t: ir.F64, f: t.val}, true
	case *variable:
		v, ok := q.env[t.name]
		if !ok {
			q.errorf(t.pos, "variable %s is unbound: queries post ground constraints", t.name)
		}
		return v, ok
	case *compound:
		return q.evalOp(t)
	}
	q.errorf(t.at(), "%s is not an arithmetic expression", show(t))
	return value{}, false
}

func (q *queryReader) evalOp(t *compound) (value, bool) {
	n, ok := arithOps[t.name]
	unary := len(t.args) == 1 && (t.name == "-" || t.name == "+")
	if (!ok || n != len(t.args)) && !unary {
		q.errorf(t.pos, "%s is not an evaluable function of the subset", predName(t))
		return value{}, false
	}
	var xs []value
	for _, a := range t.args {
		x, ok := q.eval(a)
		if !ok {
			return value{}, false
		}
		xs = append(xs, x)
	}
	op := t.name
	if unary {
		op = map[string]string{"-": "neg", "+": "pos"}[t.name]
	}
	v, msg := evalValues(op, xs)
	if msg != "" {
		q.errorf(t.pos, "%s", msg)
		return value{}, false
	}
	return v, true
}

// evalValues applies an operator to numbers; msg explains a failure.
func evalValues(op string, xs []value) (value, string) {
	anyFloat := false
	for _, x := range xs {
		anyFloat = anyFloat || x.t == ir.F64
	}
	switch op {
	case "float":
		return value{t: ir.F64, f: xs[0].float()}, ""
	case "truncate", "integer":
		if xs[0].t != ir.F64 {
			return value{}, op + " takes a float"
		}
		f := xs[0].f
		if op == "integer" {
			f = math.Round(f)
		}
		return value{t: ir.I64, i: int64(math.Trunc(f))}, ""
	case "/":
		if !anyFloat {
			return value{}, "/ on two integers: use // or a float operand"
		}
		return value{t: ir.F64, f: xs[0].float() / xs[1].float()}, ""
	}
	if intOnly[op] {
		if anyFloat {
			return value{}, op + " takes integers"
		}
		return intOp(op, xs[0].i, xs[1].i)
	}
	if anyFloat {
		return value{t: ir.F64, f: floatOp(op, xs)}, ""
	}
	return value{t: ir.I64, i: intArith(op, xs)}, ""
}

func (v value) float() float64 {
	if v.t == ir.F64 {
		return v.f
	}
	return float64(v.i)
}

// intOp evaluates // mod rem div, which need a non-zero divisor.
func intOp(op string, a, b int64) (value, string) {
	if b == 0 {
		return value{}, "integer division by zero"
	}
	var r int64
	switch op {
	case "//":
		r = a / b
	case "rem":
		r = a % b
	case "mod":
		r = a % b
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
	case "div":
		r = a / b
		if (a%b != 0) && ((a < 0) != (b < 0)) {
			r--
		}
	}
	return value{t: ir.I64, i: r}, ""
}

func intArith(op string, xs []value) int64 {
	switch op {
	case "+":
		return xs[0].i + xs[1].i
	case "-":
		return xs[0].i - xs[1].i
	case "*":
		return xs[0].i * xs[1].i
	case "min":
		return min(xs[0].i, xs[1].i)
	case "max":
		return max(xs[0].i, xs[1].i)
	case "abs":
		if xs[0].i < 0 {
			return -xs[0].i
		}
		return xs[0].i
	case "neg":
		return -xs[0].i
	}
	return xs[0].i // pos
}

func floatOp(op string, xs []value) float64 {
	switch op {
	case "+":
		return xs[0].float() + xs[1].float()
	case "-":
		return xs[0].float() - xs[1].float()
	case "*":
		return xs[0].float() * xs[1].float()
	case "min":
		return math.Min(xs[0].float(), xs[1].float())
	case "max":
		return math.Max(xs[0].float(), xs[1].float())
	case "abs":
		return math.Abs(xs[0].float())
	case "neg":
		return -xs[0].float()
	}
	return xs[0].float()
}

// typeFacts gives argument positions the types of query values, before
// inference; checkFacts then checks them against the final types.
func (c *checker) typeFacts(facts []fact) {
	for _, f := range facts {
		for i, v := range f.vals {
			c.setType(f.pos, c.cells[f.ct][i], v.t)
		}
	}
}
