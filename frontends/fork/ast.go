package fork

import (
	"gpuc/internal/diag"
	"gpuc/ir"
)

// The Fork AST: what build.go makes of the parse tree, what check.go
// resolves and types, and what the lowering reads. Scalar types are IR
// types (see types.go); ir.Void marks void functions.

// program is a whole source file.
type program struct {
	consts  []*constant
	globals []*variable
	funcs   []*function
	byName  map[string]any // *constant, *variable or *function
}

// constant is a global const scalar: a parameter, a value derived from
// parameters, or a compile-time constant (see Note [Constants]).
type constant struct {
	pos  diag.Pos
	name string
	t    ir.Type
	init expr
	kind constKind

	// Set by check.go.
	irName string  // the parameter's name in the module
	bits   ir.Bits // the default of a parameter, the value of a folded constant
}

type constKind uint8

const (
	paramConst   constKind = iota // overridable on the command line
	derivedConst                  // an expression over parameters
	foldedConst                   // a compile-time constant
)

// varKind says where a variable is declared.
type varKind uint8

const (
	globalVar varKind = iota
	localVar
	paramVar
)

// variable is a declared variable or function parameter.
type variable struct {
	pos     diag.Pos
	name    string
	t       ir.Type // the element type of an array
	kind    varKind
	rows    expr // the first dimension of an array; nil if omitted
	cols    expr // the second dimension of a 2-D array
	dims    int  // 0 for a scalar, 1 or 2 for an array
	shared  bool // declared sh
	private bool // declared pr
	isConst bool
	static  bool
	init    *initializer

	// Set by check.go.
	length ir.Expr    // number of elements of an array, over parameters
	rowLen ir.Expr    // the second dimension of a 2-D array
	inits  []initElem // the initializer, element by element
}

// initElem is one element of an initializer: index (row-major) and value.
type initElem struct {
	index int64
	x     expr
}

// isArray reports whether v is an array.
func (v *variable) isArray() bool { return v.dims > 0 }

// initializer is an expression or a braced list.
type initializer struct {
	pos  diag.Pos
	x    expr           // nil for a list
	list []*initializer // the elements of a braced list
}

// funcMode is a function's execution mode.
type funcMode uint8

const (
	asyncDefault funcMode = iota // no keyword: asynchronous, as in Fork
	syncFunc
	asyncFunc
)

// function is a function definition.
type function struct {
	pos    diag.Pos
	name   string
	mode   funcMode
	result ir.Type
	params []*variable
	body   *block

	// Set by check.go.
	calls     []*function // callees, in source order, with repeats
	usesGroup bool        // reads $, @ or groupsize() directly
}

// Statements.

type stmt interface{ stmtPos() diag.Pos }

type (
	block struct {
		pos   diag.Pos
		items []stmt
	}
	declStmt struct {
		pos  diag.Pos
		vars []*variable
	}
	exprStmt struct {
		pos diag.Pos
		x   expr // nil for an empty statement
	}
	ifStmt struct {
		pos          diag.Pos
		cond         expr
		then, orElse stmt // orElse nil if absent
	}
	whileStmt struct {
		pos  diag.Pos
		cond expr
		body stmt
	}
	doStmt struct {
		pos  diag.Pos
		body stmt
		cond expr
	}
	forStmt struct {
		pos  diag.Pos
		init stmt // a declStmt, an exprStmt or nil
		cond expr // nil: forever
		post []expr
		body stmt
	}
	breakStmt    struct{ pos diag.Pos }
	continueStmt struct{ pos diag.Pos }
	returnStmt   struct {
		pos diag.Pos
		x   expr // nil for a bare return
	}
	startStmt struct {
		pos   diag.Pos
		procs expr // nil: --procs
		body  stmt
	}
	seqStmt struct {
		pos  diag.Pos
		body stmt
	}
	farmStmt struct {
		pos  diag.Pos
		body stmt
	}
	forkStmt struct {
		pos                  diag.Pos
		count, group, member expr // member nil: $ stays
		body                 stmt
	}
	barrierStmt struct{ pos diag.Pos }
)

func (s *block) stmtPos() diag.Pos        { return s.pos }
func (s *declStmt) stmtPos() diag.Pos     { return s.pos }
func (s *exprStmt) stmtPos() diag.Pos     { return s.pos }
func (s *ifStmt) stmtPos() diag.Pos       { return s.pos }
func (s *whileStmt) stmtPos() diag.Pos    { return s.pos }
func (s *doStmt) stmtPos() diag.Pos       { return s.pos }
func (s *forStmt) stmtPos() diag.Pos      { return s.pos }
func (s *breakStmt) stmtPos() diag.Pos    { return s.pos }
func (s *continueStmt) stmtPos() diag.Pos { return s.pos }
func (s *returnStmt) stmtPos() diag.Pos   { return s.pos }
func (s *startStmt) stmtPos() diag.Pos    { return s.pos }
func (s *seqStmt) stmtPos() diag.Pos      { return s.pos }
func (s *farmStmt) stmtPos() diag.Pos     { return s.pos }
func (s *forkStmt) stmtPos() diag.Pos     { return s.pos }
func (s *barrierStmt) stmtPos() diag.Pos  { return s.pos }

// Expressions. check.go sets each one's type; ir.Invalid marks an
// expression with an error already reported.

type expr interface {
	exprPos() diag.Pos
	typ() ir.Type
	setType(ir.Type)
}

// typed is embedded in every expression.
type typed struct {
	pos diag.Pos
	t   ir.Type
}

func (e *typed) exprPos() diag.Pos { return e.pos }
func (e *typed) typ() ir.Type      { return e.t }
func (e *typed) setType(t ir.Type) { e.t = t }

type (
	// lit is a numeric, char or bool literal; its type is set by build.go.
	lit struct {
		typed
		bits ir.Bits
	}
	strLit struct {
		typed
		value string
	}
	procID  struct{ typed } // $
	groupID struct{ typed } // @
	ident   struct {
		typed
		name string
		v    *variable // set by check.go, or
		c    *constant // this
	}
	index struct {
		typed
		x, i expr
	}
	call struct {
		typed
		name    string
		args    []expr
		fn      *function // a user function, or
		builtin builtin   // this
	}
	unary struct {
		typed
		op string // - + ! ~
		x  expr
	}
	incDec struct {
		typed
		op   string // ++ or --
		post bool
		x    expr
	}
	addrOf struct {
		typed
		x expr
	}
	cast struct {
		typed
		x expr
	}
	binary struct {
		typed
		op   string
		x, y expr
		opT  ir.Type // the operand type after the usual conversions
	}
	condExpr struct {
		typed
		cond, x, y expr
	}
	assign struct {
		typed
		op   string // = += -= ...
		l, r expr
		opT  ir.Type // the operand type of a compound assignment's operator
	}
)

// builtin names a built-in function of Fork.
type builtin uint8

const (
	notBuiltin builtin = iota
	printfBuiltin
	errorBuiltin // error("message"): stops the program
	groupsizeBuiltin
	mpBuiltin    // mpadd mpmax mpmin mpand mpor: the prefix
	syncBuiltin  // syncadd syncmax syncmin syncand syncor: no result
	ilog2Builtin // ilog2(x): floor(log2(x)), -1 for x <= 0 (ilog2.go)
)

// builtinOps maps the multiprefix builtins to their IR operations.
var builtinOps = map[string]ir.AtomicOp{
	"mpadd": ir.MultiAdd, "mpmax": ir.MultiMax, "mpmin": ir.MultiMin, "mpand": ir.MultiAnd, "mpor": ir.MultiOr,
	"syncadd": ir.MultiAdd, "syncmax": ir.MultiMax, "syncmin": ir.MultiMin, "syncand": ir.MultiAnd, "syncor": ir.MultiOr,
}

// builtinOf returns the builtin called name, if any.
func builtinOf(name string) builtin {
	switch {
	case name == "printf":
		return printfBuiltin
	case name == "error":
		return errorBuiltin
	case name == "groupsize":
		return groupsizeBuiltin
	case name == "ilog2":
		return ilog2Builtin
	}
	if _, ok := builtinOps[name]; !ok {
		return notBuiltin
	}
	if name[0] == 'm' {
		return mpBuiltin
	}
	return syncBuiltin
}
