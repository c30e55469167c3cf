package ir

// Stmt is a statement. Device code (kernels, device functions, regions) and
// host code (host functions) share the structured statements; each also has
// statements of its own, and the verifier checks which may appear where.
type Stmt interface {
	At() Pos
	isStmt()
}

// Decl declares a local variable, optionally initialised. No local shadows
// a visible local, a parameter or a module-level name; disjoint scopes may
// reuse a name.
//
//	var x: i32
//	var x: i32 = 0
type Decl struct {
	Pos  Pos
	Name string
	T    Type
	Init Expr // nil if absent
}

// Assign writes a local variable.
//
//	x = e
type Assign struct {
	Pos   Pos
	Name  string
	Value Expr
}

// Store writes one element of a buffer or host array. In host code a store
// to a device buffer writes one device scalar. A priority store (SPMD only)
// resolves concurrent writes to one address between two barriers of a group
// by giving the lowest pid() the last word: Priority CRCW.
//
//	data[i] = e
//	prio data[i] = e
type Store struct {
	Pos      Pos
	Buf      string
	Index    Expr
	Value    Expr
	Priority bool
}

// AtomicOp is a read-modify-write operation.
type AtomicOp uint8

const (
	AtomicAdd  AtomicOp = iota // old + v
	AtomicSub                  // old - v
	AtomicMin                  // min(old, v), integers
	AtomicMax                  // max(old, v), integers
	AtomicAnd                  // old & v
	AtomicOr                   // old | v
	AtomicXor                  // old ^ v
	AtomicExch                 // v
	AtomicCAS                  // old == cmp ? v : old; operands cmp, v
	AtomicInc                  // old >= lim ? 0 : old+1, u32 (CUDA's atomicInc)
	// Multiprefix operations (SPMD only, the SB-PRAM's mpadd and friends):
	// the processors of a group that apply them to one address between two
	// barriers are served in pid() order, so each gets the prefix of the
	// values of lower pids, and the memory ends with the total.
	MultiAdd
	MultiMax
	MultiMin
	MultiAnd
	MultiOr
)

var atomicNames = [...]string{
	AtomicAdd: "add", AtomicSub: "sub", AtomicMin: "min", AtomicMax: "max",
	AtomicAnd: "and", AtomicOr: "or", AtomicXor: "xor", AtomicExch: "exch",
	AtomicCAS: "cas", AtomicInc: "inc",
	MultiAdd: "mpadd", MultiMax: "mpmax", MultiMin: "mpmin", MultiAnd: "mpand", MultiOr: "mpor",
}

func (o AtomicOp) String() string { return enumName(atomicNames[:], int(o), "atomic") }

// ParseAtomicOp looks up an atomic operation by name.
func ParseAtomicOp(s string) (AtomicOp, bool) {
	for o, n := range atomicNames {
		if n == s {
			return AtomicOp(o), true
		}
	}
	return 0, false
}

// IsMultiprefix reports whether o is an SPMD multiprefix operation.
func (o AtomicOp) IsMultiprefix() bool { return o >= MultiAdd }

// Operands is the number of value operands o takes after the address.
func (o AtomicOp) Operands() int {
	if o == AtomicCAS {
		return 2
	}
	return 1
}

// Atomic applies a read-modify-write to one element of a device buffer and
// optionally stores the old value in a local.
//
//	old = atomic add hist[b], 1u
//	atomic max best[0], x
//	seen = atomic cas state[i], 0, 1
type Atomic struct {
	Pos   Pos
	Dst   string // "" if the old value is dropped
	Op    AtomicOp
	Buf   string
	Index Expr
	Args  []Expr
}

// CallStmt calls a function for its effect, dropping any result.
//
//	emit(x)
type CallStmt struct {
	Pos  Pos
	Call *Call
}

// If runs Then or Else. Else is nil when absent; an else-if chain is an Else
// holding one If.
//
//	if c { ... } else { ... }
type If struct {
	Pos  Pos
	Cond Expr
	Then []Stmt
	Else []Stmt
}

// While loops while Cond holds.
//
//	while c { ... }
type While struct {
	Pos  Pos
	Cond Expr
	Body []Stmt
}

// For is C's for loop. Init is a Decl or Assign (or nil); its variable is in
// scope in the loop only. Post is an Assign or nil. continue runs Post.
//
//	for var i: i32 = 0; i < n; i = i + 1 { ... }
type For struct {
	Pos  Pos
	Init Stmt
	Cond Expr
	Post Stmt
	Body []Stmt
}

// Break leaves the innermost loop.
//
//	break
type Break struct{ Pos Pos }

// Continue starts the next iteration of the innermost loop.
//
//	continue
type Continue struct{ Pos Pos }

// Return leaves the function, with a value unless the result type is void.
//
//	return
//	return e
type Return struct {
	Pos   Pos
	Value Expr // nil for void
}

// Switch dispatches on an integer: the first case listing X's value runs,
// otherwise Default. There is no fallthrough.
//
//	switch op { case 0, 1 { ... } case 2 { ... } default { ... } }
type Switch struct {
	Pos     Pos
	X       Expr
	Cases   []*Case
	Default []Stmt // nil if absent
}

// Taken returns the body that s runs when its operand is the constant x:
// the last case that lists x's value, else the default.
func (s *Switch) Taken(x *Const) []Stmt {
	taken := s.Default
	for _, c := range s.Cases {
		for _, v := range c.Values {
			if IntBits(x.T, v) == x.Bits {
				taken = c.Body
			}
		}
	}
	return taken
}

// Case is one arm of a Switch.
type Case struct {
	Pos    Pos
	Values []int64
	Body   []Stmt
}

// Barrier synchronises threads. A block barrier (kernels only) waits for
// the block and must not sit under thread-dependent control flow. A grid
// barrier (regions only, SPMD level) waits for every processor of the
// current group, however many there are.
//
//	barrier
//	barrier grid
type Barrier struct {
	Pos  Pos
	Grid bool
}

// Raise stops the program with an error message and exit status 1. Device
// code uses it for capacity overflow; the host reports it.
//
//	raise "term store full"
type Raise struct {
	Pos Pos
	Msg string
}

// Split divides the current group of an SPMD region in two on a private
// condition. The group synchronises before the condition is evaluated, so
// the condition sees what the group wrote before the statement. Each
// subgroup keeps pid() and group(), sees its own groupsize(), synchronises
// only its own members, and runs independently of the other; the group
// rejoins after the statement.
//
//	split c { ... } else { ... }
type Split struct {
	Pos  Pos
	Cond Expr
	Then []Stmt
	Else []Stmt // nil if absent
}

// SplitWhile is a loop whose condition is private to each processor of an
// SPMD region (Fork's while loop in synchronous mode). Each iteration, the
// processors still in the loop synchronise, and those whose condition holds
// form a subgroup
// that runs Body, keeping pid() and group(), with groupsize() its size;
// a processor whose condition fails, or that breaks, leaves the loop and
// waits at its end. The loop ends when no processor is left in it, and the
// group rejoins. Grid barriers in Body synchronise the processors still in
// the loop.
//
//	split while c { ... }
type SplitWhile struct {
	Pos  Pos
	Cond Expr
	Body []Stmt
}

// Fork divides the current group into Count subgroups. Each processor joins
// subgroup Group (in 0..Count-1) and takes Member as its new pid(); group()
// is the subgroup's index. The group rejoins after the statement.
//
//	fork 2, group = pid() % 2, member = pid() / 2 { ... }
type Fork struct {
	Pos    Pos
	Count  Expr
	Group  Expr
	Member Expr
	Body   []Stmt
}

// Launch (host) runs a kernel on Grid blocks of Block threads and waits for
// it to finish. A cooperative launch runs all blocks at once, so that the
// kernel may hold grid barriers; if the device cannot hold them all, the
// Fallback statements run instead, or, without a fallback, the program
// fails with an error.
//
//	launch add(n) grid (N + 255) / 256 block 256;
//	launch steps(n) grid G block 256 coop;
//	launch steps(n) grid G block 256 coop else { ... }
//	launch steps(n) grid G block 256 coop world;
//	launch steps_s(n) grid G block 256 coop stride else { ... }
//
// A world launch splits its blocks in contiguous ranges across the
// devices, bid() and gid() staying global; a cooperative world launch's
// grid barrier is a world barrier (Note [World]). Passes make world
// launches of world regions.
type Launch struct {
	Pos    Pos
	Kernel string
	Args   []Expr
	Grid   Expr
	Block  Expr
	Coop   bool
	// Stride: where the grid does not fit, the cooperative launch runs
	// with as many blocks as fit, its kernel looping over the processors
	// (Note [Strided cooperative kernels] in passes/grid_stride.go).
	Stride   bool
	World    bool
	Fallback []Stmt // nil: none
}

// Region (host, SPMD level) runs Body on a fresh group of Procs virtual
// processors, with pid() = gid() = 0..Procs-1 and group() = 0, and waits for
// all of them. Body may read the host variables in scope.
//
// A world region splits its processors in contiguous blocks across the
// devices, and its grid barrier is a world barrier (Note [World]). A
// region that is not world runs all its processors on every device, each
// device on its own instances.
//
//	region N { ... }
//	region N world { ... }
type Region struct {
	Pos   Pos
	Procs Expr
	Body  []Stmt
	World bool
}

// Copy (host) copies Count elements between device buffers and host arrays.
// Ranges are checked at run time.
//
//	copy dst[0], src[k], n
type Copy struct {
	Pos    Pos
	Dst    string
	DstOff Expr
	Src    string
	SrcOff Expr
	Count  Expr
}

// Write (host) writes the first Count bytes of Array, a u8 host array or
// a u8 device buffer, to the output, as they are: text formatted on the
// device (Note [Device formatting]) leaves the host one large write,
// straight from the device buffer where the text is (Note [Writing from
// the device] in backends/runtime/gpuc_device.h). The count is checked
// against the memory's length at run time.
//
//	write text, n
type Write struct {
	Pos   Pos
	Array string
	Count Expr
}

// Swap (host) exchanges the contents of two device buffers of one type and
// length, in constant time.
//
//	swap cur, next
type Swap struct {
	Pos  Pos
	A, B string
}

// Printf writes formatted output: %d %u %ld %lu %f %e %c %s %x and %%, with
// flags, widths and precisions, as C's printf does. It stands in host code
// and, at the SPMD level, in regions, where each processor that runs it
// prints, in pid order between two barriers; frontends use it for output
// from one processor (Fork's seq). With Stderr the text goes to the
// standard error stream instead of the output (statistics and other
// reports that must not mix with the output; gpuc run can send it to a
// file).
//
//	printf "%5d %s\n", n, "ok"
//	printf stderr "%% steps: %ld\n", steps
type Printf struct {
	Pos    Pos
	Stderr bool
	Format string
	Args   []Expr
}

// WorldBarrier (host) waits until every device's host program reaches it,
// with all the device work that each launched before (Note [World]).
//
//	world_barrier
type WorldBarrier struct{ Pos Pos }

// AllGather (host) makes every device's instance of the symmetric buffer
// Buf whole: device d contributes the block of elements that it owns in
// a distribution of the buffer's length across the devices (Note [World])
// and receives every other device's block. It includes a world barrier.
//
//	allgather counts
type AllGather struct {
	Pos Pos
	Buf string
}

// AllReduce (host) combines Value, evaluated on every device, with Op (add,
// min, max, and, or, xor) and assigns the result, the same on every device,
// to the host local Dst. It includes a world barrier.
//
//	n = allreduce(add, pending[0])
type AllReduce struct {
	Pos   Pos
	Dst   string
	Op    AtomicOp
	Value Expr
}

// IsReduction reports whether allreduce takes o: add, min, max, and, or,
// xor.
func (o AtomicOp) IsReduction() bool { return o <= AtomicXor && o != AtomicSub }

func (s *Decl) At() Pos         { return s.Pos }
func (s *Assign) At() Pos       { return s.Pos }
func (s *Store) At() Pos        { return s.Pos }
func (s *Atomic) At() Pos       { return s.Pos }
func (s *CallStmt) At() Pos     { return s.Pos }
func (s *If) At() Pos           { return s.Pos }
func (s *While) At() Pos        { return s.Pos }
func (s *For) At() Pos          { return s.Pos }
func (s *Break) At() Pos        { return s.Pos }
func (s *Continue) At() Pos     { return s.Pos }
func (s *Return) At() Pos       { return s.Pos }
func (s *Switch) At() Pos       { return s.Pos }
func (s *Barrier) At() Pos      { return s.Pos }
func (s *Raise) At() Pos        { return s.Pos }
func (s *Split) At() Pos        { return s.Pos }
func (s *Fork) At() Pos         { return s.Pos }
func (s *SplitWhile) At() Pos   { return s.Pos }
func (s *Launch) At() Pos       { return s.Pos }
func (s *Region) At() Pos       { return s.Pos }
func (s *Copy) At() Pos         { return s.Pos }
func (s *Swap) At() Pos         { return s.Pos }
func (s *Printf) At() Pos       { return s.Pos }
func (s *WorldBarrier) At() Pos { return s.Pos }
func (s *AllGather) At() Pos    { return s.Pos }
func (s *AllReduce) At() Pos    { return s.Pos }
func (s *Write) At() Pos        { return s.Pos }

func (*Decl) isStmt()         {}
func (*Assign) isStmt()       {}
func (*Store) isStmt()        {}
func (*Atomic) isStmt()       {}
func (*CallStmt) isStmt()     {}
func (*If) isStmt()           {}
func (*While) isStmt()        {}
func (*For) isStmt()          {}
func (*Break) isStmt()        {}
func (*Continue) isStmt()     {}
func (*Return) isStmt()       {}
func (*Switch) isStmt()       {}
func (*Barrier) isStmt()      {}
func (*Raise) isStmt()        {}
func (*Split) isStmt()        {}
func (*Fork) isStmt()         {}
func (*SplitWhile) isStmt()   {}
func (*Launch) isStmt()       {}
func (*Region) isStmt()       {}
func (*Copy) isStmt()         {}
func (*Swap) isStmt()         {}
func (*Printf) isStmt()       {}
func (*WorldBarrier) isStmt() {}
func (*AllGather) isStmt()    {}
func (*AllReduce) isStmt()    {}
func (*Write) isStmt()        {}
