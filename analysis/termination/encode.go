package termination

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"gpuc/analysis/its"
	"gpuc/analysis/smt"
)

// query builds one SMT-LIB2 script in bitvector semantics: declarations, then assertions. Its
// check-sat answer is the caller's business (an obligation is proved when the script is unsat).
type query struct {
	sys   *its.System
	decls strings.Builder
	body  strings.Builder
	fresh int
	loads map[string]bool
	seen  map[string]bool
	// quotients names the fresh variable that stands for each division by a constant (Note
	// [Division by other constants]), division by a variable or exact product (freshFor).
	quotients map[string]string
	// exact holds the exact definitions of divisions by variables (Note [Division by variables]).
	exact strings.Builder
}

func newQuery(sys *its.System) *query {
	return &query{sys: sys, loads: map[string]bool{}, seen: map[string]bool{}}
}

func (q *query) script() string {
	if q.exact.Len() == 0 {
		return q.decls.String() + q.body.String()
	}
	return q.decls.String() + q.body.String() + exactMarker + q.exact.String()
}

func smtSort(s its.Sort) string {
	if s.IsBool() {
		return "Bool"
	}
	return fmt.Sprintf("(_ BitVec %d)", s.Width)
}

// symEscape drops the characters a quoted SMT-LIB symbol cannot hold (built once: building a
// Replacer per symbol was 4% of the engine's Go time on CHR's strided kernels).
var symEscape = strings.NewReplacer("|", "_", "\\", "_")

func sym(s string) string {
	if strings.ContainsAny(s, "|\\") {
		s = symEscape.Replace(s)
	}
	return "|" + s + "|"
}

func (q *query) declare(name string, s its.Sort) string {
	n := sym(name)
	if !q.seen[n] {
		q.seen[n] = true
		fmt.Fprintf(&q.decls, "(declare-const %s %s)\n", n, smtSort(s))
	}
	return n
}

// state declares one copy of every variable, suffixed by tag, and gives the name map.
func (q *query) state(tag string) map[string]string {
	m := map[string]string{}
	for _, v := range q.sys.Vars {
		m[v.Name] = q.declare(v.Name+"@"+tag, v.Sort)
	}
	return m
}

func (q *query) assert(t string) { fmt.Fprintf(&q.body, "(assert %s)\n", t) }

func bvConst(v *big.Int, w int) string {
	u := its.Sort{Width: w}.Norm(v)
	return fmt.Sprintf("(_ bv%s %d)", u.String(), w)
}

var binOps = map[its.Op]string{
	its.Add: "bvadd", its.Sub: "bvsub", its.Mul: "bvmul", its.UDiv: "bvudiv", its.SDiv: "bvsdiv",
	its.URem: "bvurem", its.SRem: "bvsrem", its.Shl: "bvshl", its.LShr: "bvlshr", its.AShr: "bvashr",
	its.And: "bvand", its.Or: "bvor", its.Xor: "bvxor", its.Eq: "=", its.Ne: "distinct",
	its.Ult: "bvult", its.Ule: "bvule", its.Ugt: "bvugt", its.Uge: "bvuge",
	its.Slt: "bvslt", its.Sle: "bvsle", its.Sgt: "bvsgt", its.Sge: "bvsge",
	its.LAnd: "and", its.LOr: "or",
}

// scope maps the Nondet nodes of one transition firing to their constants.
type scope struct {
	vars map[string]string
	nd   map[*its.Nondet]string
	// bounds, where not nil, holds what the facts' compares imply while the facts themselves
	// are encoded (Note [Products bounded by the facts]).
	bounds ienv
}

func (q *query) newScope(vars map[string]string) *scope {
	return &scope{vars: vars, nd: map[*its.Nondet]string{}}
}

// term encodes e reading variables through sc.
func (q *query) term(e its.Expr, sc *scope) string {
	switch e := e.(type) {
	case *its.Const:
		if e.Sort.IsBool() {
			if e.Val.Sign() != 0 {
				return "true"
			}
			return "false"
		}
		return bvConst(e.Val, e.Sort.Width)
	case *its.Ref:
		if n, ok := sc.vars[e.Var.Name]; ok {
			return n
		}
		return q.declare(e.Var.Name+"@?", e.Var.Sort)
	case *its.Unary:
		x := q.term(e.X, sc)
		switch e.Op {
		case its.Not:
			return "(not " + x + ")"
		case its.BNot:
			return "(bvnot " + x + ")"
		}
		return "(bvneg " + x + ")"
	case *its.Binary:
		if t, ok := q.byPowerOfTwo(e, sc); ok {
			return t
		}
		if t, ok := q.byConstant(e, sc); ok {
			return t
		}
		if t, ok := q.byVariable(e, sc); ok {
			return t
		}
		if t, ok := q.byExactProduct(e, sc); ok {
			return t
		}
		if t, ok := q.byBoundedFactors(e, sc); ok {
			return t
		}
		return "(" + binOps[e.Op] + " " + q.term(e.X, sc) + " " + q.term(e.Y, sc) + ")"
	case *its.Cast:
		x := q.term(e.X, sc)
		from := its.SortOf(e.X).Width
		k := e.To.Width - from
		switch {
		case e.Op == its.Trunc && k == 0, e.Op != its.Trunc && k == 0:
			return x
		case e.Op == its.Trunc:
			return fmt.Sprintf("((_ extract %d 0) %s)", e.To.Width-1, x)
		case e.Op == its.ZExt:
			return fmt.Sprintf("((_ zero_extend %d) %s)", k, x)
		}
		return fmt.Sprintf("((_ sign_extend %d) %s)", k, x)
	case *its.Ite:
		return "(ite " + q.term(e.C, sc) + " " + q.term(e.T, sc) + " " + q.term(e.E, sc) + ")"
	case *its.Nondet:
		if n, ok := sc.nd[e]; ok {
			return n
		}
		q.fresh++
		n := q.declare(fmt.Sprintf("nd!%d", q.fresh), e.Sort)
		sc.nd[e] = n
		return n
	case *its.Load:
		aw := its.SortOf(e.Addr).Width
		f := sym(fmt.Sprintf("load!%s!%d!%d", e.Buffer, aw, e.Sort.Width))
		if !q.loads[f] {
			q.loads[f] = true
			fmt.Fprintf(&q.decls, "(declare-fun %s ((_ BitVec %d)) (_ BitVec %d))\n", f, aw, e.Sort.Width)
		}
		return "(" + f + " " + q.term(e.Addr, sc) + ")"
	}
	return "false"
}

func and(ts []string) string { return nary("and", "true", ts) }

func or(ts []string) string { return nary("or", "false", ts) }

// nary applies the associative op to ts; unit is its value on none.
func nary(op, unit string, ts []string) string {
	switch len(ts) {
	case 0:
		return unit
	case 1:
		return ts[0]
	}
	return "(" + op + " " + strings.Join(ts, " ") + ")"
}

// someFails declares a Boolean prefix!i for each candidate, equal to its
// value in sc, and asserts that one of them is false; it returns their
// names, whose values in a model say which candidates hold (holding).
func (q *query) someFails(prefix string, cands []its.Expr, sc *scope) []string {
	var names, negs []string
	for i, c := range cands {
		n := q.declare(fmt.Sprintf("%s!%d", prefix, i), its.Bool)
		q.assert("(= " + n + " " + q.term(c, sc) + ")")
		names = append(names, n)
		negs = append(negs, "(not "+n+")")
	}
	q.assert(or(negs))
	return names
}

// holding keeps the candidates whose someFails name model makes true.
func holding(cands []its.Expr, names []string, model map[string]string) []its.Expr {
	var keep []its.Expr
	for i, c := range cands {
		if v, ok := smt.Value(model[names[i]]); ok && v.Sign() != 0 {
			keep = append(keep, c)
		}
	}
	return keep
}

// entryWith starts q at state "0": the entry facts hold and the variables
// of fixed have their values. It returns the state's names.
func (q *query) entryWith(sys *its.System, fixed map[string]*big.Int) map[string]string {
	x0 := q.state("0")
	q.assert(entryFacts(q, sys, x0))
	for _, name := range sortedNames(fixed) {
		v, _ := sys.Var(name)
		q.assert("(= " + x0[name] + " " + bvConst(fixed[name], v.Sort.Width) + ")")
	}
	return x0
}

// step encodes one firing of t from the state pre: it returns the guard and the post state
// (names or terms per variable). Updated variables get a post constant tied to their update.
func (q *query) step(t its.Transition, pre map[string]string, tag string) (guard string, post map[string]string) {
	sc := q.newScope(pre)
	var gs []string
	for _, g := range t.Guard {
		gs = append(gs, q.term(g, sc))
	}
	post = map[string]string{}
	for k, v := range pre {
		post[k] = v
	}
	for _, k := range its.SortedUpdates(t) {
		v, _ := q.sys.Var(k)
		n := q.declare(k+"@"+tag, v.Sort)
		q.assert("(= " + n + " " + q.term(t.Update[k], sc) + ")")
		post[k] = n
	}
	for _, h := range t.Havoc {
		v, _ := q.sys.Var(h)
		post[h] = q.declare(h+"@"+tag, v.Sort)
	}
	return and(gs), post
}

// diffTerm encodes f(pre) - g(post) in a signed bitvector of width w, each variable read as its
// sort says (sign- or zero-extended), so that no operation wraps. Variables that the transition
// leaves alone cancel before the solver sees them; a variable with one coefficient c in both is
// encoded as c*(x - x'); coefficients are positive and multiply by shifts and adds (a
// multiplier by a constant, such as -1 or 3 in 39 bits, is slow to bit-blast).
func (q *query) diffTerm(f *Linear, pre map[string]string, g *Linear, post map[string]string, w int) string {
	ext := func(name string, s its.Sort) string {
		if d := w - s.Width; d > 0 {
			if s.Signed {
				return fmt.Sprintf("((_ sign_extend %d) %s)", d, name)
			}
			return fmt.Sprintf("((_ zero_extend %d) %s)", d, name)
		}
		return name
	}
	var plus, minus []string
	put := func(c *big.Int, x string) {
		if c.Sign() == 0 {
			return
		}
		t := scaleTerm(new(big.Int).Abs(c), x, w)
		if c.Sign() > 0 {
			plus = append(plus, t)
		} else {
			minus = append(minus, t)
		}
	}
	seen := map[string]bool{}
	for _, v := range f.sortedVars() {
		sv, _ := q.sys.Var(v)
		c := f.Coef[v]
		var d *big.Int
		if g != nil && g.Coef[v] != nil {
			d = g.Coef[v]
		} else {
			d = new(big.Int)
		}
		seen[v] = true
		switch {
		case pre[v] == post[v]:
			put(new(big.Int).Sub(c, d), ext(pre[v], sv.Sort))
		case c.Cmp(d) == 0:
			put(c, "(bvsub "+ext(pre[v], sv.Sort)+" "+ext(post[v], sv.Sort)+")")
		default:
			put(c, ext(pre[v], sv.Sort))
			put(new(big.Int).Neg(d), ext(post[v], sv.Sort))
		}
	}
	if g != nil {
		for _, v := range g.sortedVars() {
			if seen[v] {
				continue
			}
			sv, _ := q.sys.Var(v)
			put(new(big.Int).Neg(g.Coef[v]), ext(post[v], sv.Sort))
		}
	}
	k := new(big.Int).Set(f.Const)
	if g != nil {
		k.Sub(k, g.Const)
	}
	if k.Sign() > 0 {
		plus = append(plus, bvConst(k, w))
	} else if k.Sign() < 0 {
		minus = append(minus, bvConst(new(big.Int).Neg(k), w))
	}
	sum := func(ts []string) string {
		switch len(ts) {
		case 0:
			return bvConst(new(big.Int), w)
		case 1:
			return ts[0]
		}
		return "(bvadd " + strings.Join(ts, " ") + ")"
	}
	if len(minus) == 0 {
		return sum(plus)
	}
	return "(bvsub " + sum(plus) + " " + sum(minus) + ")"
}

// scaleTerm multiplies x by c > 0 with shifts and adds where c has few bits set.
func scaleTerm(c *big.Int, x string, w int) string {
	if c.Cmp(big.NewInt(1)) == 0 {
		return x
	}
	var bits []int
	for i := 0; i < c.BitLen(); i++ {
		if c.Bit(i) == 1 {
			bits = append(bits, i)
		}
	}
	if len(bits) > 4 {
		return "(bvmul " + bvConst(c, w) + " " + x + ")"
	}
	var parts []string
	for _, b := range bits {
		if b == 0 {
			parts = append(parts, x)
		} else {
			parts = append(parts, fmt.Sprintf("(bvshl %s %s)", x, bvConst(big.NewInt(int64(b)), w)))
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(bvadd " + strings.Join(parts, " ") + ")"
}

// Linear is an integer linear function of the variables, read as their sorts say.
type Linear struct {
	Coef  map[string]*big.Int
	Const *big.Int
}

func (f *Linear) sortedVars() []string {
	var ks []string
	for k, c := range f.Coef {
		if c.Sign() != 0 {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return ks
}

// String prints f as "n - i + 3".
func (f *Linear) String() string {
	var b strings.Builder
	for _, k := range f.sortedVars() {
		c := f.Coef[k]
		switch {
		case b.Len() == 0 && c.Cmp(big.NewInt(1)) == 0:
			b.WriteString(k)
		case b.Len() == 0 && c.Cmp(big.NewInt(-1)) == 0:
			b.WriteString("-" + k)
		case b.Len() == 0:
			fmt.Fprintf(&b, "%s*%s", c, k)
		case c.Cmp(big.NewInt(1)) == 0:
			b.WriteString(" + " + k)
		case c.Cmp(big.NewInt(-1)) == 0:
			b.WriteString(" - " + k)
		case c.Sign() < 0:
			fmt.Fprintf(&b, " - %s*%s", new(big.Int).Neg(c), k)
		default:
			fmt.Fprintf(&b, " + %s*%s", c, k)
		}
	}
	switch {
	case b.Len() == 0:
		return f.Const.String()
	case f.Const.Sign() > 0:
		fmt.Fprintf(&b, " + %s", f.Const)
	case f.Const.Sign() < 0:
		fmt.Fprintf(&b, " - %s", new(big.Int).Neg(f.Const))
	}
	return b.String()
}

// width gives a bitvector width in which f never overflows.
func (f *Linear) width(sys *its.System) int {
	sum := new(big.Int).Abs(f.Const)
	maxw := 1
	for k, c := range f.Coef {
		v, _ := sys.Var(k)
		if v.Sort.Width > maxw {
			maxw = v.Sort.Width
		}
		sum.Add(sum, new(big.Int).Abs(c))
	}
	return maxw + sum.BitLen() + 3
}

// diffWidth is a width in which diffTerm(f, pre, g, post, ·) is exact, as width is for one
// function, counted over the terms that do not cancel (a variable the step keeps, with the same
// coefficient in f and g, adds nothing): templates that differ only in what the step keeps then
// give the same query, which the solver's cache answers (Note [Ranked outer levels carry over]).
func diffWidth(sys *its.System, f *Linear, pre map[string]string, g *Linear, post map[string]string) int {
	sum := new(big.Int).Set(f.Const)
	if g != nil {
		sum.Sub(sum, g.Const)
	}
	sum.Abs(sum)
	maxw := 1
	coef := func(l *Linear, v string) *big.Int {
		if l != nil && l.Coef[v] != nil {
			return l.Coef[v]
		}
		return new(big.Int)
	}
	vars := map[string]bool{}
	for v := range f.Coef {
		vars[v] = true
	}
	if g != nil {
		for v := range g.Coef {
			vars[v] = true
		}
	}
	for v := range vars {
		c, d := coef(f, v), coef(g, v)
		var n *big.Int
		if pre[v] == post[v] {
			n = new(big.Int).Abs(new(big.Int).Sub(c, d))
		} else {
			// c*pre - d*post, or c*(pre - post) with |pre - post| < 2^(width+1).
			n = new(big.Int).Add(new(big.Int).Abs(c), new(big.Int).Abs(d))
		}
		if n.Sign() == 0 {
			continue
		}
		sum.Add(sum, n)
		if sv, _ := sys.Var(v); sv.Sort.Width > maxw {
			maxw = sv.Sort.Width
		}
	}
	// |f(pre) - g(post)| < sum * 2^maxw; the caller adds one bit more. For a counter, c - c',
	// this is width's margin for c alone (the solver's speed varies with the width).
	return maxw + sum.BitLen() + 2
}

// Note [Division by powers of two]
// Polybench's tiled loops divide by 16, 32 or 8192 (floord), and a 64-bit bvsdiv costs the solver
// a division circuit: seconds where it has to find a model. Division and remainder by a constant
// +-2^k (1 <= k <= width-2) are encoded exactly with shifts instead:
//   x /u 2^k = x >>u k,  x %u 2^k = x & (2^k - 1),
//   x /s 2^k = (x + ((x >>s (w-1)) >>u (w-k))) >>s k   (rounds toward zero, as bvsdiv),
//   x /s -2^k = -(x /s 2^k),  x %s +-2^k = x - ((x /s 2^k) << k)   (the sign of x, as bvsrem).
// TestPowerOfTwoDivision checks each against the solver's own operators.

// constDivisor reads a division or remainder by a constant: the width w, the divisor's
// magnitude d, and whether it is negative (signed operations only); ok=false otherwise.
func constDivisor(e *its.Binary) (w int, d *big.Int, neg, ok bool) {
	switch e.Op {
	case its.UDiv, its.URem, its.SDiv, its.SRem:
	default:
		return 0, nil, false, false
	}
	c, isConst := e.Y.(*its.Const)
	if !isConst {
		return 0, nil, false, false
	}
	w = c.Sort.Width
	d = new(big.Int).Mod(c.Val, new(big.Int).Lsh(big.NewInt(1), uint(w))) // the constant's bits
	if (e.Op == its.SDiv || e.Op == its.SRem) && d.Bit(w-1) == 1 {
		d.Sub(d, new(big.Int).Lsh(big.NewInt(1), uint(w)))
		d.Neg(d)
		neg = true
	}
	return w, d, neg, true
}

// byPowerOfTwo encodes a division or remainder by a constant +-2^k with shifts; ok=false otherwise.
func (q *query) byPowerOfTwo(e *its.Binary, sc *scope) (string, bool) {
	w, d, neg, ok := constDivisor(e)
	if !ok {
		return "", false
	}
	k := d.BitLen() - 1
	if k < 1 || k > w-2 || new(big.Int).Lsh(big.NewInt(1), uint(k)).Cmp(d) != 0 {
		return "", false
	}
	x := q.term(e.X, sc)
	n := func(v int) string { return bvConst(big.NewInt(int64(v)), w) }
	switch e.Op {
	case its.UDiv:
		return fmt.Sprintf("(bvlshr %s %s)", x, n(k)), true
	case its.URem:
		return fmt.Sprintf("(bvand %s %s)", x, bvConst(new(big.Int).Sub(d, big.NewInt(1)), w)), true
	}
	quo := fmt.Sprintf("(bvashr (bvadd %s (bvlshr (bvashr %s %s) %s)) %s)", x, x, n(w-1), n(w-k), n(k))
	if e.Op == its.SRem {
		return fmt.Sprintf("(bvsub %s (bvshl %s %s))", x, quo, n(k)), true
	}
	if neg {
		return "(bvneg " + quo + ")", true
	}
	return quo, true
}
