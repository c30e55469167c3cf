package fork

import (
	"gpuc/ir"
)

// block checks a block; scoped says whether it opens a scope of its own
// (a function body shares its parameters' scope).
func (c *checker) block(b *block, scoped bool) {
	if scoped {
		c.push()
		defer c.pop()
	}
	for _, s := range b.items {
		c.stmt(s)
	}
}

func (c *checker) stmt(s stmt) {
	switch s := s.(type) {
	case *block:
		c.block(s, true)
	case *declStmt:
		for _, v := range s.vars {
			c.varDecl(v)
			c.declare(v)
		}
	case *exprStmt:
		if s.x != nil {
			c.effect(s.x)
		}
	case *ifStmt:
		c.cond(s.cond)
		c.nested(s.then)
		if s.orElse != nil {
			c.nested(s.orElse)
		}
	case *whileStmt:
		c.cond(s.cond)
		c.loop(s.body)
	case *doStmt:
		c.loop(s.body)
		c.cond(s.cond)
	case *forStmt:
		c.forStmt(s)
	case *breakStmt:
		c.jump(s.pos, "break")
	case *continueStmt:
		c.jump(s.pos, "continue")
	case *returnStmt:
		c.returnStmt(s)
	case *startStmt:
		if s.procs != nil {
			c.integer(s.procs, "the number of processors of start")
		}
		c.fenced(s.body, "start")
	case *seqStmt:
		c.fenced(s.body, "seq")
	case *farmStmt:
		c.fenced(s.body, "farm")
	case *forkStmt:
		c.integer(s.count, "the number of subgroups of fork")
		c.integer(s.group, "the group index @ of fork")
		if s.member != nil {
			c.integer(s.member, "the processor index $ of fork")
		}
		c.fenced(s.body, "fork")
	case *barrierStmt:
	}
}

// nested checks the body of an if or loop, which is a scope of its own
// even without braces.
func (c *checker) nested(s stmt) {
	c.push()
	c.stmt(s)
	c.pop()
}

func (c *checker) loop(body stmt) {
	c.loops++
	c.nested(body)
	c.loops--
}

// fenced checks the body of start, seq, farm or fork.
func (c *checker) fenced(body stmt, what string) {
	loops, fence := c.loops, c.fence
	c.loops, c.fence = 0, what
	c.nested(body)
	c.loops, c.fence = loops, fence
}

func (c *checker) forStmt(s *forStmt) {
	c.push()
	defer c.pop()
	if s.init != nil {
		c.stmt(s.init)
	}
	if s.cond != nil {
		c.cond(s.cond)
	}
	for _, e := range s.post {
		c.effect(e)
	}
	c.loop(s.body)
}

func (c *checker) jump(pos ir.Pos, what string) {
	switch {
	case c.loops > 0:
	case c.fence != "":
		c.errorf(pos, "%s may not leave the body of %s", what, c.fence)
	default:
		c.errorf(pos, "%s outside a loop", what)
	}
}

func (c *checker) returnStmt(s *returnStmt) {
	f := c.fn
	if c.fence != "" {
		c.errorf(s.pos, "return may not leave the body of %s", c.fence)
	}
	switch {
	case s.x == nil && f.result != ir.Void && f.name != "main":
		c.errorf(s.pos, "return without a value in function %s, which returns %s", f.name, cName(f.result))
	case s.x == nil:
	case f.result == ir.Void:
		c.errorf(s.pos, "return with a value in function %s, which returns void", f.name)
		c.rvalue(s.x)
	default:
		c.rvalue(s.x)
	}
}

// cond checks a condition: any scalar.
func (c *checker) cond(e expr) {
	c.rvalue(e)
}

// integer checks an expression that must have an integer type.
func (c *checker) integer(e expr, what string) {
	if t := c.rvalue(e); t != ir.Invalid && !isIntegral(t) {
		c.errorf(e.exprPos(), "%s has type %s, want an integer", what, cName(t))
	}
}

// initializer checks v's initializer and flattens it into v.inits.
func (c *checker) initializer(v *variable) {
	in := v.init
	if !v.isArray() {
		if in.x == nil {
			c.errorf(in.pos, "scalar %s has a braced initializer", v.name)
			return
		}
		c.initValue(v, initElem{0, in.x})
		return
	}
	if in.list == nil {
		c.errorf(in.pos, "array %s needs a braced initializer", v.name)
		return
	}
	nested := false
	for _, el := range in.list {
		nested = nested || el.list != nil
	}
	if nested && v.dims == 2 {
		c.rowsInit(v)
	} else {
		for i, el := range in.list {
			c.initElem(v, el, int64(i))
		}
	}
	if n, ok := constInt(v.length); ok && int64(len(v.inits)) > n {
		c.errorf(in.pos, "too many initializers for %s, which has %d elements", v.name, n)
	}
}

// rowsInit flattens {{...}, {...}} for a 2-D array.
func (c *checker) rowsInit(v *variable) {
	cols, ok := constInt(v.rowLen)
	if !ok {
		c.errorf(v.init.pos, "a braced initializer of %s needs a constant second dimension", v.name)
		return
	}
	for r, row := range v.init.list {
		if row.list == nil {
			c.errorf(row.pos, "row %d of %s's initializer is not braced", r, v.name)
			continue
		}
		if int64(len(row.list)) > cols {
			c.errorf(row.pos, "too many initializers for row %d of %s, which has %d elements", r, v.name, cols)
			continue
		}
		for k, el := range row.list {
			c.initElem(v, el, int64(r)*cols+int64(k))
		}
	}
}

func (c *checker) initElem(v *variable, el *initializer, i int64) {
	if el.x == nil {
		c.errorf(el.pos, "too many braces in the initializer of %s", v.name)
		return
	}
	c.initValue(v, initElem{i, el.x})
}

// initValue checks one initial value; a global's must be constant.
func (c *checker) initValue(v *variable, el initElem) {
	if c.rvalue(el.x) == ir.Invalid {
		return
	}
	if v.kind == globalVar && constIR(el.x) == nil {
		c.errorf(el.x.exprPos(), "initializer of global %s must be a constant expression", v.name)
		return
	}
	v.inits = append(v.inits, el)
}
