package ir

import (
	"fmt"
	"reflect"

	"gpuc/internal/diag"
)

// Verify checks that m is a well-formed module at the given level. It
// returns nil or a diag.List holding every error found, sorted by position.
// Messages inside a function name it ("kernel scan: ...").
//
// The checks, in the files that hold them:
//   - verify_decl.go: module-level names, parameters, buffers, arrays,
//     function headers and main;
//   - verify_stmt.go, verify_host.go and verify_expr.go: scopes, types, and
//     where each construct may appear (kernels, device functions, host
//     code, regions);
//   - verify_flow.go: definite assignment and missing returns;
//   - verify_uniform.go: barriers under thread-dependent control flow, see
//     Note [Uniformity];
//   - verify_world.go: the world's host statements, and host control flow
//     that must be the same on every device (Note [World-uniform host
//     code]).
//
// Verify never panics, whatever m holds: nil nodes, unknown names and
// out-of-range enums are reported like any other error, so that passes can
// call it after every step.
func Verify(m *Module, level Level) error {
	if m == nil {
		return diag.List{diag.Errorf(Pos{}, "nil module")}
	}
	v := &verifier{
		m:           m,
		level:       level,
		globals:     map[string]global{},
		cleanLen:    map[*Buffer]bool{},
		uses:        map[*Var]*local{},
		defs:        map[Stmt]*local{},
		facts:       map[*Func]*funcFacts{},
		broken:      map[*Func]bool{},
		fieldLocals: map[*Field]*local{},

		gridKernels: map[*Func]bool{},
	}
	v.index()
	v.decls()
	v.devicesParam()
	for _, f := range m.Funcs {
		if f != nil {
			v.funcBody(f)
		}
	}
	v.crossChecks()
	v.errs.Sort()
	return v.errs.Err()
}

// verifier holds the state of one Verify call.
type verifier struct {
	m       *Module
	level   Level
	errs    diag.List
	globals map[string]global // module-level names

	// The first declaration of each name; Module's lookup methods would
	// trip over nil entries.
	params  map[string]*Param
	buffers map[string]*Buffer
	arrays  map[string]*Array
	funcs   map[string]*Func

	cleanLen map[*Buffer]bool // buffers whose lengths passed the checks

	// The function being checked and where in it.
	fn    *Func
	at    Pos // the innermost enclosing known position, for nodes without one
	cx    context
	scope *scope

	// Facts the later analyses need, gathered while checking bodies.
	uses        map[*Var]*local   // the local each variable reads
	defs        map[Stmt]*local   // the local each Decl, Assign, Atomic and AllReduce writes
	fieldLocals map[*Field]*local // the local of each function parameter
	facts       map[*Func]*funcFacts
	broken      map[*Func]bool // functions holding nil or unknown nodes
	regions     []regionSite
	calls       []regionCall // device functions called in regions
	// Kernels holding grid barriers, and the launches of kernels.
	gridKernels map[*Func]bool
	launches    []*Launch
}

// global is a module-level name.
type global struct {
	pos  Pos
	what string // "parameter N", "buffer data", ...
}

// index fills the lookup maps.
func (v *verifier) index() {
	v.params, v.buffers = map[string]*Param{}, map[string]*Buffer{}
	v.arrays, v.funcs = map[string]*Array{}, map[string]*Func{}
	for _, p := range v.m.Params {
		if p != nil && v.params[p.Name] == nil {
			v.params[p.Name] = p
		}
	}
	for _, b := range v.m.Buffers {
		if b != nil && v.buffers[b.Name] == nil {
			v.buffers[b.Name] = b
		}
	}
	for _, a := range v.m.Arrays {
		if a != nil && v.arrays[a.Name] == nil {
			v.arrays[a.Name] = a
		}
	}
	for _, f := range v.m.Funcs {
		if f != nil && v.funcs[f.Name] == nil {
			v.funcs[f.Name] = f
		}
	}
}

// errorf records an error at pos, or at the innermost enclosing known
// position if pos is unknown, naming the function being checked.
func (v *verifier) errorf(pos Pos, format string, args ...any) {
	if !pos.IsValid() {
		pos = v.at
	}
	msg := fmt.Sprintf(format, args...)
	if v.fn != nil {
		msg = fmt.Sprintf("%s %s: %s", kindName(v.fn.Kind), v.fn.Name, msg)
	}
	v.errs = append(v.errs, &diag.Error{Pos: pos, Msg: msg})
}

// malformed records an error about a node that no frontend produces, such
// as a nil expression, and marks the function so that the flow analyses,
// which assume a well-formed tree, skip it.
func (v *verifier) malformed(pos Pos, format string, args ...any) {
	v.errorf(pos, format, args...)
	if v.fn != nil {
		v.broken[v.fn] = true
	}
}

// enter moves the fallback position to pos if pos is known and returns a
// function that restores it.
func (v *verifier) enter(pos Pos) func() {
	saved := v.at
	if pos.IsValid() {
		v.at = pos
	}
	return func() { v.at = saved }
}

// funcBody checks f's parameters and body, then the flow analyses that
// need only f.
func (v *verifier) funcBody(f *Func) {
	v.fn, v.at = f, f.Pos
	if !v.at.IsValid() {
		v.at = v.m.Pos
	}
	defer func() { v.fn, v.scope = nil, nil }()
	v.cx = context{code: codeOf(f.Kind)}
	if f.Kind == DeviceFunc {
		v.facts[f] = &funcFacts{}
	}
	v.push(false)
	for i, p := range f.Params {
		if p == nil {
			v.malformed(f.Pos, "nil parameter %d", i+1)
			continue
		}
		v.fieldLocals[p] = v.declare(p.Name, p.Pos, v.scalar(p.Type, p.Pos, "parameter "+p.Name), true)
	}
	v.block(f.Body)
	v.pop()
	if v.broken[f] {
		return
	}
	v.checkAssigned(f)
	if f.Result != Void && f.Result != Invalid && !terminates(f.Body) {
		v.errorf(f.Pos, "missing return at the end of the function")
	}
}

// crossChecks runs the checks that need every function's facts: device
// functions called in regions, and barrier uniformity.
func (v *verifier) crossChecks() {
	for _, c := range v.calls {
		v.fn, v.at = c.fn, c.call.Pos
		v.regionCall(c.call)
	}
	for _, f := range v.m.Funcs {
		if f != nil && f.Kind == KernelFunc && !v.broken[f] {
			v.fn, v.at = f, f.Pos
			v.checkUniform(f.Body, false)
			if v.gridKernels[f] {
				v.checkGridUniform(f.Body)
			}
		}
	}
	for _, l := range v.launches {
		if k := v.funcs[l.Kernel]; k != nil && v.gridKernels[k] && !l.Coop {
			v.fn, v.at = nil, l.Pos
			v.errorf(l.Pos, "kernel %s holds grid barriers; launch it with coop", l.Kernel)
		}
	}
	for _, r := range v.regions {
		if !v.broken[r.fn] {
			v.fn, v.at = r.fn, r.region.Pos
			v.checkUniform(r.region.Body, true)
		}
	}
	v.checkWorldUniform()
	v.fn = nil
}

// isNil reports whether x is nil or a typed nil pointer, as a buggy pass
// might leave in an Expr or Stmt slot.
func isNil(x any) bool {
	if x == nil {
		return true
	}
	r := reflect.ValueOf(x)
	return r.Kind() == reflect.Pointer && r.IsNil()
}

// Names of enums that may be out of range in malformed IR; their String
// methods would panic.

func kindName(k FuncKind) string {
	if validKind(k) {
		return k.String()
	}
	return "function"
}

func validKind(k FuncKind) bool     { return int(k) < len(funcKindNames) }
func validSpace(s Space) bool       { return int(s) < len(spaceNames) }
func validRole(r Role) bool         { return int(r) < len(roleNames) }
func validUnOp(o UnOp) bool         { return int(o) < len(unOpNames) }
func validBinOp(o BinOp) bool       { return int(o) < len(binOpNames) }
func validAtomic(o AtomicOp) bool   { return int(o) < len(atomicNames) }
func validBuiltin(o BuiltinOp) bool { return int(o) < len(builtinNames) }
