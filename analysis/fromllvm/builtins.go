package fromllvm

import (
	"math/big"
	"strings"

	"gpuc/analysis/its"
)

// A launch builtin: OpenCL's work-item functions and CUDA's special registers, read as
// variables of the thread with the launch facts of Note [Launch facts].
type builtin int

const (
	bTid   builtin = iota // thread index in the block (get_local_id, threadIdx)
	bBdim                 // block size (get_local_size, blockDim)
	bBid                  // block index (get_group_id, blockIdx)
	bGdim                 // grid size in blocks (get_num_groups, gridDim)
	bGid                  // global index (get_global_id)
	bGsize                // global size in threads (get_global_size)
)

var builtinNames = [...]string{bTid: "tid", bBdim: "bdim", bBid: "bid", bGdim: "gdim", bGid: "gid", bGsize: "gsize"}

// openclBuiltins maps the SPIR-mangled work-item functions.
var openclBuiltins = map[string]builtin{
	"_Z12get_local_idj":            bTid,
	"_Z14get_local_sizej":          bBdim,
	"_Z23get_enqueued_local_sizej": bBdim,
	"_Z12get_group_idj":            bBid,
	"_Z14get_num_groupsj":          bGdim,
	"_Z13get_global_idj":           bGid,
	"_Z15get_global_sizej":         bGsize,
}

// cudaBuiltin reads llvm.nvvm.read.ptx.sreg.{tid,ntid,ctaid,nctaid}.{x,y,z}.
func cudaBuiltin(name string) (builtin, int, bool) {
	rest, ok := strings.CutPrefix(name, "llvm.nvvm.read.ptx.sreg.")
	if !ok {
		return 0, 0, false
	}
	reg, dim, ok := strings.Cut(rest, ".")
	if !ok || len(dim) != 1 || dim[0] < 'x' || dim[0] > 'z' {
		return 0, 0, false
	}
	d := int(dim[0] - 'x')
	switch reg {
	case "tid":
		return bTid, d, true
	case "ntid":
		return bBdim, d, true
	case "ctaid":
		return bBid, d, true
	case "nctaid":
		return bGdim, d, true
	}
	return 0, 0, false
}

// isBarrier reports whether a callee is a block barrier (a no-op for one thread, Theorem 3).
func isBarrier(name string) bool {
	switch name {
	case "_Z7barrierj", "_Z18work_group_barrierj", "_Z18work_group_barrierj12memory_scope",
		"llvm.nvvm.barrier0", "__syncthreads", "llvm.nvvm.barrier.sync", "llvm.nvvm.bar.sync":
		return true
	}
	return false
}

// Note [Launch facts]
// Each dimension d the kernel reads gets variables tid.d < bdim.d, 1 <= bdim.d <= 1024,
// bid.d < gdim.d, 1 <= gdim.d <= 2^31-1 (the launch facts), and in OpenCL
// gid.d = bid.d*bdim.d + tid.d, gsize.d = gdim.d*bdim.d (no global offset), with their linear
// consequences tid.d <= gid.d < gsize.d, bdim.d <= gsize.d <= (2^31-1)*1024, so that an
// analysis over linear arithmetic sees them too. OpenCL's are size_t (64 bits), CUDA's 32 bits.

// launchVar gives the variable of builtin b in dimension d, creating the dimension's
// variables and facts on first use.
func (t *fnT) launchVar(b builtin, d int, s its.Sort) *its.Ref {
	key := builtinNames[b] + "." + string(rune('x'+d))
	if v, ok := t.launch[key]; ok {
		return its.R(v)
	}
	t.launchDim(d, s)
	return its.R(t.launch[key])
}

func (t *fnT) launchDim(d int, s its.Sort) {
	dim := string(rune('x' + d))
	mk := func(b builtin) its.Var {
		key := builtinNames[b] + "." + dim
		v := its.Var{Name: t.uniq(key), Sort: s}
		t.launch[key] = v
		t.constVar[v.Name] = true
		t.sys.Vars = append(t.sys.Vars, v)
		return v
	}
	tid, bdim, bid, gdim := mk(bTid), mk(bBdim), mk(bBid), mk(bGdim)
	t.sys.ThreadVars = append(t.sys.ThreadVars, tid.Name, bid.Name)
	c := func(v int64) its.Expr { return its.C(v, s) }
	maxGrid := int64(1)<<31 - 1
	fact := func(e its.Expr, why string) { t.sys.Facts = append(t.sys.Facts, its.Fact{Expr: e, Why: why}) }
	fact(its.B(its.Ult, its.R(tid), its.R(bdim)), "thread id < block size")
	fact(its.B(its.LAnd, its.B(its.Ule, c(1), its.R(bdim)), its.B(its.Ule, its.R(bdim), c(1024))), "1 <= block size <= 1024")
	fact(its.B(its.Ult, its.R(bid), its.R(gdim)), "block id < grid size")
	fact(its.B(its.LAnd, its.B(its.Ule, c(1), its.R(gdim)),
		its.B(its.Ule, its.R(gdim), &its.Const{Val: big.NewInt(maxGrid), Sort: s})), "1 <= grid size <= 2^31-1")
	if s.Width < 64 {
		return
	}
	gid, gsize := mk(bGid), mk(bGsize)
	t.sys.ThreadVars = append(t.sys.ThreadVars, gid.Name)
	fact(its.B(its.Eq, its.R(gid), its.B(its.Add, its.B(its.Mul, its.R(bid), its.R(bdim)), its.R(tid))),
		"global id = block id * block size + thread id (no global offset)")
	fact(its.B(its.Eq, its.R(gsize), its.B(its.Mul, its.R(gdim), its.R(bdim))), "global size = grid size * block size")
	fact(its.B(its.Ule, its.R(tid), its.R(gid)), "thread id <= global id")
	fact(its.B(its.Ult, its.R(gid), its.R(gsize)), "global id < global size")
	fact(its.B(its.Ule, its.R(bdim), its.R(gsize)), "block size <= global size")
	fact(its.B(its.Ule, its.R(gsize), c(maxGrid*1024)), "global size <= (2^31-1)*1024")
}
