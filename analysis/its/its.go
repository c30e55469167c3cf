// Package its is the integer transition system that termination analysis reads: locations at loop
// heads, guarded transitions with simultaneous updates, and typed variables of a width and a
// signedness. Both translators (analysis/fromir for gpuc's launch-level IR, analysis/fromllvm for
// external kernels) build it, already under the thread-modular abstraction (Note [Thread-modular
// ITS]). It is not a program representation for code generation: it only over-approximates one
// thread's control and integer data.
package its

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
)

// Note [Thread-modular ITS]
// One System describes one arbitrary thread of a kernel (or one device function). Memory is gone:
// a load from shared or global memory is a Nondet (any value, fresh each time), except a load
// from a buffer the kernel never writes, which is a Load: an uninterpreted function of the
// address, so the same address gives the same value. Stores to memory and barriers are no-ops
// (Theorem 3 of the seed paper). Launch facts (thread id < block size, 1 <= block <= 1024, ...)
// are Facts; they hold at the entry and the analysis states them in its output. Integer
// operations wrap at their width: Add of two 32-bit values is addition modulo 2^32, and Signed
// only says how comparisons, division, shifts and extension read the bits.

// Sort is the type of a variable or an expression: a bitvector of Width bits (1..64), read as
// signed or unsigned, or the boolean sort (Width 0).
type Sort struct {
	Width  int
	Signed bool
}

// Bool is the sort of guards and comparisons.
var Bool = Sort{}

// Common sorts.
var (
	I32 = Sort{32, true}
	U32 = Sort{32, false}
	I64 = Sort{64, true}
	U64 = Sort{64, false}
)

// IsBool reports whether s is the boolean sort.
func (s Sort) IsBool() bool { return s.Width == 0 }

// String prints s as bool, iW (signed) or uW (unsigned).
func (s Sort) String() string {
	switch {
	case s.IsBool():
		return "bool"
	case s.Signed:
		return fmt.Sprintf("i%d", s.Width)
	}
	return fmt.Sprintf("u%d", s.Width)
}

// Min and Max give the range of a bitvector sort as its signedness reads it.
func (s Sort) Min() *big.Int {
	if s.IsBool() || !s.Signed {
		return new(big.Int)
	}
	return new(big.Int).Neg(pow2(s.Width - 1))
}

// Max: see Min.
func (s Sort) Max() *big.Int {
	if s.IsBool() {
		return big.NewInt(1)
	}
	w := s.Width
	if s.Signed {
		w--
	}
	return new(big.Int).Sub(pow2(w), big.NewInt(1))
}

// Norm wraps v into the range of s (two's complement for signed sorts; 0/1 for Bool). The
// result is a new value. See Note [Norm without big shifts].
func (s Sort) Norm(v *big.Int) *big.Int {
	if s.IsBool() {
		if v.Sign() != 0 {
			return big.NewInt(1)
		}
		return new(big.Int)
	}
	if s.Width <= 64 && (v.IsInt64() || v.IsUint64()) {
		var x uint64
		if v.IsInt64() {
			x = uint64(v.Int64())
		} else {
			x = v.Uint64()
		}
		sh := uint(64 - s.Width)
		if s.Signed {
			return big.NewInt(int64(x<<sh) >> sh)
		}
		return new(big.Int).SetUint64(x << sh >> sh)
	}
	mod := pow2(s.Width)
	r := new(big.Int).Mod(v, mod)
	if s.Signed && r.Cmp(pow2(s.Width-1)) >= 0 {
		r.Sub(r, mod)
	}
	return r
}

// Note [Norm without big shifts]
// Norm runs in every concrete evaluation (its.Eval: the sample filters, Houdini's samples, the
// tests' simulations); building 2^w with a big shift at each call was half of the engine's Go
// time. A value of 64 bits or fewer wraps in machine words (mask, then sign-extend by shifts);
// wider values use powers of two built once. pow2's values are shared: never modify them.

// pow2s holds 2^0 .. 2^maxPow2; pow2 builds larger ones afresh.
const maxPow2 = 256

var pow2s = func() []*big.Int {
	out := make([]*big.Int, maxPow2+1)
	for i := range out {
		out[i] = new(big.Int).Lsh(big.NewInt(1), uint(i))
	}
	return out
}()

func pow2(w int) *big.Int {
	if w >= 0 && w <= maxPow2 {
		return pow2s[w]
	}
	return new(big.Int).Lsh(big.NewInt(1), uint(w))
}

// Var is a variable of the system. Every variable holds one value of its sort at each location.
type Var struct {
	Name string
	Sort Sort
}

// Op is an operator of Unary, Binary and Cast.
type Op int

// Operators. Arithmetic and bitwise operators take and give bitvectors of one sort; comparisons
// take two bitvectors of one sort (the U/S prefix fixes how they are read, whatever the sort's
// Signed says) and give Bool; Not, LAnd and LOr work on Bool; BNot and Neg on bitvectors;
// ZExt, SExt and Trunc are Casts.
const (
	Add Op = iota
	Sub
	Mul
	UDiv
	SDiv
	URem
	SRem
	Shl
	LShr
	AShr
	And
	Or
	Xor
	Eq
	Ne
	Ult
	Ule
	Ugt
	Uge
	Slt
	Sle
	Sgt
	Sge
	Not
	LAnd
	LOr
	BNot
	Neg
	ZExt
	SExt
	Trunc
)

var opNames = [...]string{
	Add: "+", Sub: "-", Mul: "*", UDiv: "/u", SDiv: "/s", URem: "%u", SRem: "%s",
	Shl: "<<", LShr: ">>u", AShr: ">>s", And: "&", Or: "|", Xor: "^",
	Eq: "==", Ne: "!=", Ult: "<u", Ule: "<=u", Ugt: ">u", Uge: ">=u",
	Slt: "<s", Sle: "<=s", Sgt: ">s", Sge: ">=s",
	Not: "!", LAnd: "&&", LOr: "||", BNot: "~", Neg: "neg",
	ZExt: "zext", SExt: "sext", Trunc: "trunc",
}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op%d", int(o))
}

// IsCompare reports whether o compares two bitvectors.
func (o Op) IsCompare() bool { return o >= Eq && o <= Sge }

// Expr is an expression over the variables of a System. The sum type is closed: Const, Ref,
// Unary, Binary, Cast, Ite, Nondet and Load.
type Expr interface {
	isExpr()
	String() string
}

// Const is a constant of a sort. Val is the value as the sort reads it (in [Min, Max]).
type Const struct {
	Val  *big.Int
	Sort Sort
}

// Ref reads a variable.
type Ref struct{ Var Var }

// Unary applies Not, BNot or Neg.
type Unary struct {
	Op Op
	X  Expr
}

// Binary applies an arithmetic, bitwise, comparison or logical operator.
type Binary struct {
	Op   Op
	X, Y Expr
}

// Cast applies ZExt, SExt or Trunc to the sort To.
type Cast struct {
	Op Op
	X  Expr
	To Sort
}

// Ite is if C then T else E.
type Ite struct{ C, T, E Expr }

// Nondet is any value: a load from memory other threads may write, an unknown call, a float
// compare. Why says which (for reasons and witnesses). Each firing of a transition draws fresh
// values; within one transition every occurrence of the same *Nondet node (pointer) is one value,
// so a translator can test a loaded value in a guard and store it in an update.
type Nondet struct {
	Sort Sort
	Why  string
}

// Load reads a buffer the kernel never writes: the same address gives the same value everywhere
// in the system.
type Load struct {
	Buffer string
	Addr   Expr
	Sort   Sort
}

func (*Const) isExpr()  {}
func (*Ref) isExpr()    {}
func (*Unary) isExpr()  {}
func (*Binary) isExpr() {}
func (*Cast) isExpr()   {}
func (*Ite) isExpr()    {}
func (*Nondet) isExpr() {}
func (*Load) isExpr()   {}

// C makes a constant of sort s from v (wrapped into the sort).
func C(v int64, s Sort) *Const { return &Const{Val: s.Norm(big.NewInt(v)), Sort: s} }

// True and False are the boolean constants.
func True() *Const  { return &Const{Val: big.NewInt(1), Sort: Bool} }
func False() *Const { return &Const{Val: new(big.Int), Sort: Bool} }

// R reads variable v.
func R(v Var) *Ref { return &Ref{Var: v} }

// B makes a binary expression.
func B(op Op, x, y Expr) *Binary { return &Binary{Op: op, X: x, Y: y} }

// SortOf gives the sort of e (assuming e is well formed; see System.Validate).
func SortOf(e Expr) Sort {
	switch e := e.(type) {
	case *Const:
		return e.Sort
	case *Ref:
		return e.Var.Sort
	case *Unary:
		if e.Op == Not {
			return Bool
		}
		return SortOf(e.X)
	case *Binary:
		if e.Op.IsCompare() || e.Op == LAnd || e.Op == LOr {
			return Bool
		}
		return SortOf(e.X)
	case *Cast:
		return e.To
	case *Ite:
		return SortOf(e.T)
	case *Nondet:
		return e.Sort
	case *Load:
		return e.Sort
	}
	return Bool
}

// String prints an expression in a C-like syntax that Parse reads back, with sorts on constants
// other than i32 and bool: "(i + 2:u32)", "(i <u n)", "!((i == n))", "zext:u64(i)",
// "nondet:i32(load a)", "A[(i + 1)]:i32".
func (e *Const) String() string {
	if e.Sort.IsBool() {
		if e.Val.Sign() != 0 {
			return "true"
		}
		return "false"
	}
	if e.Sort == I32 {
		return e.Val.String()
	}
	return e.Val.String() + ":" + e.Sort.String()
}
func (e *Ref) String() string   { return e.Var.Name }
func (e *Unary) String() string { return e.Op.String() + "(" + e.X.String() + ")" }
func (e *Binary) String() string {
	return "(" + e.X.String() + " " + e.Op.String() + " " + e.Y.String() + ")"
}
func (e *Cast) String() string {
	return e.Op.String() + ":" + e.To.String() + "(" + e.X.String() + ")"
}
func (e *Ite) String() string {
	return "(" + e.C.String() + " ? " + e.T.String() + " : " + e.E.String() + ")"
}
func (e *Nondet) String() string { return "nondet:" + e.Sort.String() + "(" + e.Why + ")" }
func (e *Load) String() string {
	return e.Buffer + "[" + e.Addr.String() + "]:" + e.Sort.String()
}

// Loc is a location: the entry, a loop head, an exit, or any other point a translator keeps.
type Loc struct {
	Name     string
	Pos      string // file:line:col, or ""
	LoopHead bool
	Barrier  bool // a barrier lies on a cycle through here
	Fault    bool // an exit where the thread raises an error, which ends the whole launch
}

// Transition goes from From to To when every Guard holds. Update assigns simultaneously (variables
// not named keep their value; the right-hand sides read the values before the transition); Havoc
// variables get fresh values.
type Transition struct {
	From, To int
	Guard    []Expr
	Update   map[string]Expr
	Havoc    []string
	Pos      string
}

// Map gives a copy of t with f applied to each guard conjunct and each
// update; t is not changed.
func (t Transition) Map(f func(Expr) Expr) Transition {
	nt := t
	nt.Guard = make([]Expr, len(t.Guard))
	for i, g := range t.Guard {
		nt.Guard[i] = f(g)
	}
	nt.Update = make(map[string]Expr, len(t.Update))
	for k, e := range t.Update {
		nt.Update[k] = f(e)
	}
	return nt
}

// Fact is an assumption that holds at the entry: a launch fact or a frontend's checked fact.
type Fact struct {
	Expr Expr
	Why  string // "thread id < block size"
}

// BoundWhy starts the Why of a fact that bounds a value read from a bounded buffer (Note
// [Bounded buffers] in package ir): a condition on the bound's parameter can stand for one on
// the value.
const BoundWhy = "bound of buffer "

// System is one kernel or device function, seen by one thread.
type System struct {
	Name   string // kernel or device function
	File   string
	Vars   []Var
	Params []string // variables that are kernel/module parameters (unknown unless fixed)
	// ThreadVars are the variables that hold the thread's ids (thread and block index); the
	// analysis uses them to spot barrier divergence and to state witnesses.
	ThreadVars []string
	Locs       []Loc
	Entry      int
	Exit       []int // locations where the thread ends
	Facts      []Fact
	Trans      []Transition
	// Semantics is "wrap" (the default, also for "") or, where a translator assumed that no
	// signed overflow happens (LLVM's nsw under --semantics=c), the list of those assumptions.
	Semantics string
	// Assumed lists what the translator assumed beyond wrap semantics, one entry per place
	// ("nsw at k.cl:12:7"); printed with the verdict.
	Assumed []string
}

// Var looks a variable up by name.
func (s *System) Var(name string) (Var, bool) {
	for _, v := range s.Vars {
		if v.Name == name {
			return v, true
		}
	}
	return Var{}, false
}

// AddExit adds an exit location, named exit, and returns it.
func (s *System) AddExit() int {
	s.Locs = append(s.Locs, Loc{Name: "exit"})
	l := len(s.Locs) - 1
	s.Exit = append(s.Exit, l)
	return l
}

// AddFault adds an exit location where the thread raises an error: the
// program stops there with it, every thread with it, so no thread waits
// at a barrier for one that left this way (barrier divergence ignores
// these exits).
func (s *System) AddFault() int {
	l := s.AddExit()
	s.Locs[l].Name, s.Locs[l].Fault = "fault", true
	return l
}

// IsExit reports whether location l ends the thread.
func (s *System) IsExit(l int) bool {
	for _, x := range s.Exit {
		if x == l {
			return true
		}
	}
	return false
}

// String prints the system in the text form Parse reads.
func (s *System) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "system %s\n", s.Name)
	for _, v := range s.Vars {
		fmt.Fprintf(&b, "var %s %s\n", v.Name, v.Sort)
	}
	if len(s.Params) > 0 {
		fmt.Fprintf(&b, "params %s\n", strings.Join(s.Params, ", "))
	}
	if len(s.ThreadVars) > 0 {
		fmt.Fprintf(&b, "thread %s\n", strings.Join(s.ThreadVars, ", "))
	}
	for _, f := range s.Facts {
		fmt.Fprintf(&b, "fact %s -- %s\n", f.Expr, f.Why)
	}
	for i, l := range s.Locs {
		var tags []string
		if i == s.Entry {
			tags = append(tags, "entry")
		}
		if s.IsExit(i) {
			tags = append(tags, "exit")
		}
		if l.LoopHead {
			tags = append(tags, "loop")
		}
		if l.Barrier {
			tags = append(tags, "barrier")
		}
		fmt.Fprintf(&b, "loc %s [%s] %s\n", l.Name, strings.Join(tags, " "), l.Pos)
	}
	for _, t := range s.Trans {
		b.WriteString("trans " + s.TransString(t) + "\n")
	}
	if s.Semantics != "" {
		fmt.Fprintf(&b, "semantics %s\n", s.Semantics)
	}
	for _, a := range s.Assumed {
		fmt.Fprintf(&b, "assumed %s\n", a)
	}
	return b.String()
}

// TransString prints one transition: "L0 -> L1 [g1, g2] {x := e; y := *}".
func (s *System) TransString(t Transition) string {
	name := func(l int) string {
		if l >= 0 && l < len(s.Locs) {
			return s.Locs[l].Name
		}
		return fmt.Sprintf("?%d", l)
	}
	var gs []string
	for _, g := range t.Guard {
		gs = append(gs, g.String())
	}
	var us []string
	for _, k := range sortedKeys(t.Update) {
		us = append(us, k+" := "+t.Update[k].String())
	}
	for _, h := range t.Havoc {
		us = append(us, h+" := *")
	}
	return fmt.Sprintf("%s -> %s [%s] {%s}", name(t.From), name(t.To), strings.Join(gs, ", "), strings.Join(us, "; "))
}

func sortedKeys(m map[string]Expr) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// SortedUpdates gives the updated variable names of t in a fixed order.
func SortedUpdates(t Transition) []string { return sortedKeys(t.Update) }
