package fork

import (
	"gpuc/frontends/syntax"
	"gpuc/internal/diag"
	"gpuc/ir"
)

// checker resolves names and types the AST, reporting every error it
// finds. It checks what holds wherever code runs; what depends on where a
// function is called from (sequential, synchronous or asynchronous code)
// is checked by the lowering, which knows.
type checker struct {
	file  string
	errs  *diag.List
	prog  *program
	scope *scope
	fn    *function
	// loops counts the loops around the statement inside the innermost
	// fence: the start, seq, farm or fork body that break, continue and
	// return may not leave ("" if none).
	loops int
	fence string
}

// scope is one block's variables.
type scope struct {
	outer *scope
	vars  map[string]*variable
}

func (c *checker) errorf(pos diag.Pos, format string, args ...any) { c.errs.Add(pos, format, args...) }

// check checks the whole program: functions are visible everywhere,
// constants after their declaration, global variables in every function.
func (c *checker) check() {
	p := c.prog
	p.byName = map[string]any{}
	for _, f := range p.funcs {
		c.global(f.name, f.pos, f)
		if builtinOf(f.name) != notBuiltin {
			c.errorf(f.pos, "%s is a builtin function of Fork and cannot be redefined", f.name)
		}
	}
	for _, k := range p.consts {
		c.global(k.name, k.pos, k)
		c.constant(k)
	}
	for _, v := range p.globals {
		c.global(v.name, v.pos, v)
	}
	for _, v := range p.globals {
		c.varDecl(v)
	}
	for _, f := range p.funcs {
		c.function(f)
	}
	c.mainFunc()
}

// global declares a module-level name.
func (c *checker) global(name string, pos diag.Pos, obj any) {
	if old, ok := c.prog.byName[name]; ok {
		c.errorf(pos, "%s redeclared (previous declaration at %s)", name, declPos(old))
		return
	}
	c.prog.byName[name] = obj
}

func declPos(obj any) diag.Pos {
	switch o := obj.(type) {
	case *variable:
		return o.pos
	case *constant:
		return o.pos
	case *function:
		return o.pos
	}
	return diag.Pos{}
}

func (c *checker) mainFunc() {
	f, _ := c.prog.byName["main"].(*function)
	switch {
	case f == nil:
		c.errorf(syntax.FileStart(c.file), "program has no function main")
	case len(f.params) > 0:
		c.errorf(f.pos, "main must take no parameters")
	case f.result != ir.Void && f.result != ir.I32:
		c.errorf(f.pos, "main must return void or int")
	case f.mode != asyncDefault:
		c.errorf(f.pos, "main runs sequentially; it cannot be declared sync or async")
	}
}

func (c *checker) constant(k *constant) {
	if k.init == nil || c.rvalue(k.init) == ir.Invalid {
		return
	}
	v := constIR(k.init)
	if v == nil {
		c.errorf(k.init.exprPos(), "value of constant %s must be a constant expression", k.name)
		return
	}
	c.classify(k, v)
}

func (c *checker) function(f *function) {
	c.fn, c.loops, c.fence = f, 0, ""
	c.push()
	for _, p := range f.params {
		c.param(p)
	}
	c.block(f.body, false)
	c.pop()
	c.fn = nil
}

func (c *checker) param(p *variable) {
	if p.shared && c.fn.mode != syncFunc && !p.isArray() {
		c.errorf(p.pos, "sh parameter %s of function %s, which is not sync: only a sync function's group shares its parameters", p.name, c.fn.name)
	}
	if p.cols != nil && c.dimension(p, p.cols, "second dimension") != nil {
		p.rowLen = rowLen(p)
	}
	c.declare(p)
}

func (c *checker) push() { c.scope = &scope{outer: c.scope, vars: map[string]*variable{}} }
func (c *checker) pop()  { c.scope = c.scope.outer }

// declare adds a local variable or parameter to the innermost scope.
func (c *checker) declare(v *variable) {
	if old := c.scope.vars[v.name]; old != nil {
		c.errorf(v.pos, "%s redeclared in this scope (previous declaration at %s)", v.name, old.pos)
	}
	c.scope.vars[v.name] = v
}

// lookup resolves a name: locals, innermost first, then globals.
func (c *checker) lookup(name string) any {
	for s := c.scope; s != nil; s = s.outer {
		if v := s.vars[name]; v != nil {
			return v
		}
	}
	return c.prog.byName[name]
}

// varDecl checks a declaration's dimensions and initializer.
func (c *checker) varDecl(v *variable) {
	switch {
	case v.kind == globalVar && v.private:
		c.errorf(v.pos, "private global variables are not supported; declare %s sh, or pr inside start", v.name)
	case v.kind == localVar && v.static:
		c.errorf(v.pos, "static local variables are not supported; declare %s at global scope", v.name)
	case v.isConst && v.init == nil && v.kind == globalVar && v.isArray() && v.rows != nil:
		// Its contents come with --static (Note [Static arrays without
		// initializers] in lower.go).
	case v.isConst && v.init == nil:
		c.errorf(v.pos, "const %s needs an initializer", v.name)
	}
	if v.isArray() {
		c.arrayLength(v)
	}
	if v.init != nil {
		c.initializer(v)
	}
}

// arrayLength checks v's dimensions and sets v.length and v.rowLen.
func (c *checker) arrayLength(v *variable) {
	ok := true
	switch {
	case v.rows != nil:
		ok = c.dimension(v, v.rows, "size") != nil
	case v.init == nil || v.init.list == nil:
		c.errorf(v.pos, "size of array %s is missing", v.name)
		ok = false
	}
	if v.dims == 2 {
		ok = c.dimension(v, v.cols, "second dimension") != nil && ok
	}
	if ok {
		v.length, v.rowLen = arrayLen(v), rowLen(v)
	}
}

// dimension checks one array dimension: a positive integer constant
// expression, which may use parameters.
func (c *checker) dimension(v *variable, e expr, what string) ir.Expr {
	t := c.rvalue(e)
	if t == ir.Invalid {
		return nil
	}
	if !isIntegral(t) {
		c.errorf(e.exprPos(), "%s of array %s has type %s, want an integer", what, v.name, cName(t))
		return nil
	}
	d := constIR(e)
	if d == nil {
		c.errorf(e.exprPos(), "%s of array %s must be a constant expression", what, v.name)
		return nil
	}
	d = convert(d, promote(t))
	if n, ok := constInt(d); ok && n <= 0 {
		c.errorf(e.exprPos(), "%s of array %s must be positive, not %d", what, v.name, n)
		return nil
	}
	return d
}
