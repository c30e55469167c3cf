package chr

import (
	"gpuc/internal/diag"
	"gpuc/ir"
)

// arith is a typed arithmetic expression of a guard or body.
type arith interface{ at() diag.Pos }

// aVar reads a rule variable.
type aVar struct {
	pos diag.Pos
	v   *ruleVar
}

// aNum is a number literal: I holds an integer, F a float.
type aNum struct {
	pos diag.Pos
	t   ir.Type
	i   int64
	f   float64
}

// aOp applies an operator or an evaluable function: + - * / // mod rem
// div min max abs float truncate integer.
type aOp struct {
	pos  diag.Pos
	op   string
	args []arith
}

func (a *aVar) at() diag.Pos { return a.pos }
func (a *aNum) at() diag.Pos { return a.pos }
func (a *aOp) at() diag.Pos  { return a.pos }

// ruleVar is a variable of a rule. Its type lives in a cell shared with
// the argument positions it meets.
type ruleVar struct {
	name string
	pos  diag.Pos // first occurrence
	cell *cell
	// is is set when a body `V is E` binds the variable.
	is arith
}

// comparison is one guard test: < > =< >= =:= =\= == \==.
type comparison struct {
	pos  diag.Pos
	op   string
	x, y arith
}

// bodyGoal is `V is E` (bind) or a constraint to post (post).
type bodyGoal interface{ at() diag.Pos }

type bind struct {
	pos diag.Pos
	v   *ruleVar
	e   arith
}

type post struct {
	pos  diag.Pos
	ct   *ctype
	args []arith
}

func (g *bind) at() diag.Pos { return g.pos }
func (g *post) at() diag.Pos { return g.pos }

// cell is a union-find node carrying a type, ir.Invalid while unknown.
type cell struct {
	parent *cell
	t      ir.Type
}

func (c *cell) find() *cell {
	for c.parent != nil {
		c = c.parent
	}
	return c
}

// arithOps maps the binary operators and functions of the subset to
// their arity.
var arithOps = map[string]int{
	"+": 2, "-": 2, "*": 2, "/": 2, "//": 2, "mod": 2, "rem": 2, "div": 2,
	"min": 2, "max": 2, "abs": 1, "float": 1, "truncate": 1, "integer": 1,
}

// intOnly lists the operators defined on integers only.
var intOnly = map[string]bool{"//": true, "mod": true, "rem": true, "div": true}

// typeOf computes an expression's type, ir.Invalid where it depends on a
// type not yet known.
func typeOf(a arith) ir.Type {
	switch a := a.(type) {
	case *aVar:
		return a.v.cell.find().t
	case *aNum:
		return a.t
	case *aOp:
		switch a.op {
		case "float", "/":
			return ir.F64
		case "truncate", "integer":
			return ir.I64
		}
		t := ir.I64
		for _, x := range a.args {
			switch typeOf(x) {
			case ir.Invalid:
				if !intOnly[a.op] {
					return ir.Invalid
				}
			case ir.F64:
				t = ir.F64
			}
		}
		if intOnly[a.op] {
			return ir.I64
		}
		return t
	}
	return ir.Invalid
}
