package ir

// Note [Checked facts]
//
// A frontend often knows a range or a relation of a value it computes,
// which no analysis could find by itself: Fork's group recursion counts a
// group's members in memory, so for one thread the count is any value,
// but every member counted itself, so 1 <= fr_size <= the processors of
// the start and fr_pid < fr_size (Note [Group recursion] in
// frontends/fork). A fact about a buffer's elements is a bound on the
// buffer (Note [Bounded buffers]); a fact about a value the program
// computes is a checked fact, the statement
//
//	if !(FACT) { raise "internal error: ..." }
//
// at the place where the frontend knows FACT. It is plain IR: the
// interpreter and both backends check it like any raise (one compare
// where it stands), so a wrong fact fails every test that runs the
// program with a positioned error instead of making a wrong proof, and no
// pass or backend needs to know about it. The termination analysis reads
// a raise as the end of the thread (analysis/fromir), so every path past
// the check carries FACT as a guard: a compare over variables the path
// does not change later holds at the loops it reaches (Note [Invariants
// for free] in analysis/termination), and a compare of a value the same
// transition sets, a load included, is kept as a fact about the variable
// set (Note [Guards on what a transition sets]).
//
// The message is "FILE:LINE:COL: internal error: ...", the position of
// the source construct the fact is about (gpuc run prints "error: " and
// the message, as for every raise, and generated code prints the same):
// a correct frontend never raises it, so where one does the position says
// where to look. FACT is best a conjunction of compares (`1 <= s && s <= P`), which
// the analysis splits into its conjuncts; a negated disjunction is one
// opaque guard to it. A new IR statement (an assume that backends drop)
// would save the compare on the GPU but would touch every pass, backend
// and the verifier, and an unchecked assume in generated code makes a
// wrong fact silent there.

// CheckFact is the checked fact cond at pos (Note [Checked facts]): a
// raise of "POS: internal error: " + what where cond is false.
func CheckFact(pos Pos, cond Expr, what string) *If {
	return &If{Pos: pos, Cond: &Unary{Pos: pos, Op: Not, X: cond},
		Then: []Stmt{&Raise{Pos: pos, Msg: pos.String() + ": internal error: " + what}}}
}
