package its

import (
	"fmt"
	"math/big"
)

// Validate checks that s is well formed: locations and variables exist, sorts agree, every
// operator gets operands it accepts. It returns every problem found, never panics.
func (s *System) Validate() []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", s.Name, fmt.Sprintf(format, args...)))
	}
	vars := map[string]Sort{}
	for _, v := range s.Vars {
		if v.Name == "" {
			bad("variable with no name")
		}
		if _, dup := vars[v.Name]; dup {
			bad("variable %s declared twice", v.Name)
		}
		if v.Sort.Width < 1 || v.Sort.Width > 64 {
			bad("variable %s has width %d (want 1..64)", v.Name, v.Sort.Width)
		}
		vars[v.Name] = v.Sort
	}
	for _, p := range append(append([]string{}, s.Params...), s.ThreadVars...) {
		if _, ok := vars[p]; !ok {
			bad("parameter or thread variable %s is not a variable", p)
		}
	}
	locOK := func(l int) bool { return l >= 0 && l < len(s.Locs) }
	if !locOK(s.Entry) {
		bad("entry %d is not a location", s.Entry)
	}
	for _, x := range s.Exit {
		if !locOK(x) {
			bad("exit %d is not a location", x)
		}
	}
	check := func(where string, e Expr, want Sort) {
		got, err := checkExpr(e, vars)
		if err != nil {
			bad("%s: %v", where, err)
			return
		}
		if got != want {
			bad("%s: %s has sort %s, want %s", where, e, got, want)
		}
	}
	for i, f := range s.Facts {
		check(fmt.Sprintf("fact %d", i), f.Expr, Bool)
	}
	for i, t := range s.Trans {
		where := fmt.Sprintf("transition %d", i)
		if !locOK(t.From) || !locOK(t.To) {
			bad("%s: location out of range (%d -> %d)", where, t.From, t.To)
		}
		if locOK(t.From) && s.IsExit(t.From) {
			bad("%s leaves exit location %s", where, s.Locs[t.From].Name)
		}
		for _, g := range t.Guard {
			check(where+" guard", g, Bool)
		}
		for _, k := range SortedUpdates(t) {
			vs, ok := vars[k]
			if !ok {
				bad("%s updates unknown variable %s", where, k)
				continue
			}
			check(where+" update of "+k, t.Update[k], vs)
		}
		for _, h := range t.Havoc {
			if _, ok := vars[h]; !ok {
				bad("%s havocs unknown variable %s", where, h)
			}
			if _, both := t.Update[h]; both {
				bad("%s both updates and havocs %s", where, h)
			}
		}
	}
	return errs
}

func checkExpr(e Expr, vars map[string]Sort) (Sort, error) {
	bv := func(s Sort) error {
		if s.IsBool() {
			return fmt.Errorf("%s: want a bitvector", e)
		}
		return nil
	}
	switch e := e.(type) {
	case nil:
		return Bool, fmt.Errorf("nil expression")
	case *Const:
		if e.Val == nil {
			return Bool, fmt.Errorf("constant with no value")
		}
		if e.Val.Cmp(e.Sort.Min()) < 0 || e.Val.Cmp(e.Sort.Max()) > 0 {
			return Bool, fmt.Errorf("constant %s out of range of %s", e.Val, e.Sort)
		}
		return e.Sort, nil
	case *Ref:
		s, ok := vars[e.Var.Name]
		if !ok {
			return Bool, fmt.Errorf("unknown variable %s", e.Var.Name)
		}
		if s != e.Var.Sort {
			return Bool, fmt.Errorf("variable %s used as %s, declared %s", e.Var.Name, e.Var.Sort, s)
		}
		return s, nil
	case *Unary:
		x, err := checkExpr(e.X, vars)
		if err != nil {
			return Bool, err
		}
		switch e.Op {
		case Not:
			if !x.IsBool() {
				return Bool, fmt.Errorf("%s: ! wants a boolean", e)
			}
			return Bool, nil
		case BNot, Neg:
			return x, bv(x)
		}
		return Bool, fmt.Errorf("%s: %s is not a unary operator", e, e.Op)
	case *Binary:
		x, err := checkExpr(e.X, vars)
		if err != nil {
			return Bool, err
		}
		y, err := checkExpr(e.Y, vars)
		if err != nil {
			return Bool, err
		}
		if x != y {
			return Bool, fmt.Errorf("%s: operand sorts %s and %s differ", e, x, y)
		}
		switch {
		case e.Op == LAnd || e.Op == LOr:
			if !x.IsBool() {
				return Bool, fmt.Errorf("%s: %s wants booleans", e, e.Op)
			}
			return Bool, nil
		case e.Op == Eq || e.Op == Ne:
			return Bool, nil
		case e.Op.IsCompare():
			return Bool, bv(x)
		case e.Op <= Xor:
			return x, bv(x)
		}
		return Bool, fmt.Errorf("%s: %s is not a binary operator", e, e.Op)
	case *Cast:
		x, err := checkExpr(e.X, vars)
		if err != nil {
			return Bool, err
		}
		if err := bv(x); err != nil {
			return Bool, err
		}
		if e.To.Width < 1 || e.To.Width > 64 {
			return Bool, fmt.Errorf("%s: bad target width", e)
		}
		switch e.Op {
		case ZExt, SExt:
			if e.To.Width < x.Width {
				return Bool, fmt.Errorf("%s: extension narrows", e)
			}
		case Trunc:
			if e.To.Width > x.Width {
				return Bool, fmt.Errorf("%s: truncation widens", e)
			}
		default:
			return Bool, fmt.Errorf("%s: %s is not a cast", e, e.Op)
		}
		return e.To, nil
	case *Ite:
		c, err := checkExpr(e.C, vars)
		if err != nil {
			return Bool, err
		}
		if !c.IsBool() {
			return Bool, fmt.Errorf("%s: condition is not boolean", e)
		}
		t, err := checkExpr(e.T, vars)
		if err != nil {
			return Bool, err
		}
		f, err := checkExpr(e.E, vars)
		if err != nil {
			return Bool, err
		}
		if t != f {
			return Bool, fmt.Errorf("%s: branch sorts %s and %s differ", e, t, f)
		}
		return t, nil
	case *Nondet:
		return e.Sort, nil
	case *Load:
		a, err := checkExpr(e.Addr, vars)
		if err != nil {
			return Bool, err
		}
		if err := bv(a); err != nil {
			return Bool, err
		}
		if e.Sort.IsBool() {
			return Bool, fmt.Errorf("%s: load of a boolean", e)
		}
		return e.Sort, nil
	}
	return Bool, fmt.Errorf("unknown expression %T", e)
}

// Env gives concrete values for evaluation: variables, and the values that Nondet and Load
// produce.
type Env struct {
	Vars   map[string]*big.Int
	Nondet func(n *Nondet) *big.Int
	Load   func(buffer string, addr *big.Int, s Sort) *big.Int
}

// Eval computes e in env with wrap-around semantics. Division by zero follows SMT-LIB (x/u0 is all
// ones, x/s0 is -1 or 1 by the sign of x, x%0 is x), so Eval agrees with the solver; translators
// guard real divisions. Booleans are 0 and 1.
func Eval(e Expr, env *Env) *big.Int {
	switch e := e.(type) {
	case *Const:
		return e.Val
	case *Ref:
		if v, ok := env.Vars[e.Var.Name]; ok {
			return e.Var.Sort.Norm(v)
		}
		return new(big.Int)
	case *Unary:
		x := Eval(e.X, env)
		s := SortOf(e.X)
		switch e.Op {
		case Not:
			return b2i(x.Sign() == 0)
		case BNot:
			return s.Norm(new(big.Int).Not(x))
		case Neg:
			return s.Norm(new(big.Int).Neg(x))
		}
	case *Binary:
		if e.Op == LAnd {
			if Eval(e.X, env).Sign() == 0 {
				return new(big.Int)
			}
			return b2i(Eval(e.Y, env).Sign() != 0)
		}
		if e.Op == LOr {
			if Eval(e.X, env).Sign() != 0 {
				return big.NewInt(1)
			}
			return b2i(Eval(e.Y, env).Sign() != 0)
		}
		s := SortOf(e.X)
		x, y := Eval(e.X, env), Eval(e.Y, env)
		return evalBinary(e.Op, s, x, y)
	case *Cast:
		x := Eval(e.X, env)
		from := SortOf(e.X)
		switch e.Op {
		case ZExt:
			return e.To.Norm(asUnsigned(x, from))
		case SExt:
			return e.To.Norm(asSigned(x, from))
		case Trunc:
			return e.To.Norm(x)
		}
	case *Ite:
		if Eval(e.C, env).Sign() != 0 {
			return Eval(e.T, env)
		}
		return Eval(e.E, env)
	case *Nondet:
		if env.Nondet != nil {
			return e.Sort.Norm(env.Nondet(e))
		}
		return new(big.Int)
	case *Load:
		a := Eval(e.Addr, env)
		if env.Load != nil {
			return e.Sort.Norm(env.Load(e.Buffer, a, e.Sort))
		}
		return new(big.Int)
	}
	return new(big.Int)
}

func b2i(b bool) *big.Int {
	if b {
		return big.NewInt(1)
	}
	return new(big.Int)
}

func asUnsigned(x *big.Int, s Sort) *big.Int { return Sort{s.Width, false}.Norm(x) }
func asSigned(x *big.Int, s Sort) *big.Int   { return Sort{s.Width, true}.Norm(x) }

func evalBinary(op Op, s Sort, x, y *big.Int) *big.Int {
	// Only the readings an operator uses (Eval's hot path: Note [Norm without big shifts]).
	var ux, uy, sx, sy *big.Int
	if op != Add && op != Sub && op != Mul {
		uy = asUnsigned(y, s)
		switch op {
		case SDiv, SRem, AShr, Slt, Sle, Sgt, Sge:
			sx, sy = asSigned(x, s), asSigned(y, s)
		default:
			ux = asUnsigned(x, s)
		}
	}
	r := new(big.Int)
	switch op {
	case Add:
		return s.Norm(r.Add(x, y))
	case Sub:
		return s.Norm(r.Sub(x, y))
	case Mul:
		return s.Norm(r.Mul(x, y))
	case UDiv:
		if uy.Sign() == 0 {
			return s.Norm(big.NewInt(-1))
		}
		return s.Norm(r.Quo(ux, uy))
	case SDiv:
		if sy.Sign() == 0 {
			if sx.Sign() < 0 {
				return s.Norm(big.NewInt(1))
			}
			return s.Norm(big.NewInt(-1))
		}
		return s.Norm(r.Quo(sx, sy))
	case URem:
		if uy.Sign() == 0 {
			return s.Norm(ux)
		}
		return s.Norm(r.Rem(ux, uy))
	case SRem:
		if sy.Sign() == 0 {
			return s.Norm(sx)
		}
		return s.Norm(r.Rem(sx, sy))
	case Shl, LShr, AShr:
		if uy.Cmp(big.NewInt(int64(s.Width))) >= 0 {
			if op == AShr && sx.Sign() < 0 {
				return s.Norm(big.NewInt(-1))
			}
			return new(big.Int)
		}
		k := uint(uy.Uint64())
		switch op {
		case Shl:
			return s.Norm(r.Lsh(ux, k))
		case LShr:
			return s.Norm(r.Rsh(ux, k))
		}
		return s.Norm(r.Rsh(sx, k))
	case And:
		return s.Norm(r.And(ux, uy))
	case Or:
		return s.Norm(r.Or(ux, uy))
	case Xor:
		return s.Norm(r.Xor(ux, uy))
	case Eq:
		return b2i(ux.Cmp(uy) == 0)
	case Ne:
		return b2i(ux.Cmp(uy) != 0)
	case Ult:
		return b2i(ux.Cmp(uy) < 0)
	case Ule:
		return b2i(ux.Cmp(uy) <= 0)
	case Ugt:
		return b2i(ux.Cmp(uy) > 0)
	case Uge:
		return b2i(ux.Cmp(uy) >= 0)
	case Slt:
		return b2i(sx.Cmp(sy) < 0)
	case Sle:
		return b2i(sx.Cmp(sy) <= 0)
	case Sgt:
		return b2i(sx.Cmp(sy) > 0)
	case Sge:
		return b2i(sx.Cmp(sy) >= 0)
	}
	return r
}

// Walk calls f on e and every subexpression, parents first.
func Walk(e Expr, f func(Expr)) {
	f(e)
	switch e := e.(type) {
	case *Unary:
		Walk(e.X, f)
	case *Binary:
		Walk(e.X, f)
		Walk(e.Y, f)
	case *Cast:
		Walk(e.X, f)
	case *Ite:
		Walk(e.C, f)
		Walk(e.T, f)
		Walk(e.E, f)
	case *Load:
		Walk(e.Addr, f)
	}
}

// Rewrite gives e with each subexpression that f replaces replaced: f sees
// parents first, and where it answers (r, true) r stands for the whole
// subexpression; elsewhere the node is rebuilt over its rewritten children.
func Rewrite(e Expr, f func(Expr) (Expr, bool)) Expr {
	if r, ok := f(e); ok {
		return r
	}
	switch x := e.(type) {
	case *Unary:
		return &Unary{Op: x.Op, X: Rewrite(x.X, f)}
	case *Binary:
		return B(x.Op, Rewrite(x.X, f), Rewrite(x.Y, f))
	case *Cast:
		y := *x
		y.X = Rewrite(x.X, f)
		return &y
	case *Ite:
		return &Ite{C: Rewrite(x.C, f), T: Rewrite(x.T, f), E: Rewrite(x.E, f)}
	case *Load:
		y := *x
		y.Addr = Rewrite(x.Addr, f)
		return &y
	}
	return e
}

// FreeVars gives the names of the variables e reads.
func FreeVars(e Expr) map[string]bool {
	m := map[string]bool{}
	Walk(e, func(x Expr) {
		if r, ok := x.(*Ref); ok {
			m[r.Var.Name] = true
		}
	})
	return m
}

// HasNondet reports whether e reads memory (Nondet or Load).
func HasNondet(e Expr) bool {
	found := false
	Walk(e, func(x Expr) {
		switch x.(type) {
		case *Nondet, *Load:
			found = true
		}
	})
	return found
}
