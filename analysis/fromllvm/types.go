package fromllvm

import (
	"github.com/llir/llvm/ir/types"

	"gpuc/analysis/its"
)

// sortOf gives the its sort of an LLVM scalar type: iN is a bitvector of N bits (i1 is the
// boolean sort), a pointer is a 64-bit address; ok is false for anything else (floats,
// vectors, aggregates), whose values the translation does not track.
func sortOf(t types.Type) (its.Sort, bool) {
	switch t := t.(type) {
	case *types.IntType:
		if t.BitSize == 1 {
			return its.Bool, true
		}
		if t.BitSize > 64 {
			return its.Sort{}, false
		}
		return its.Sort{Width: int(t.BitSize)}, true
	case *types.PointerType:
		return its.U64, true
	}
	return its.Sort{}, false
}

// sizeOf and alignOf follow the usual 64-bit data layout (spir64 and nvptx64 agree on what
// kernels use): natural alignment, vectors of 3 padded to 4, structs padded to their alignment.
func sizeOf(t types.Type) int64 {
	switch t := t.(type) {
	case *types.IntType:
		return roundPow2((int64(t.BitSize) + 7) / 8)
	case *types.FloatType:
		switch t.Kind {
		case types.FloatKindHalf:
			return 2
		case types.FloatKindFloat:
			return 4
		case types.FloatKindDouble:
			return 8
		}
		return 16
	case *types.PointerType:
		return 8
	case *types.VectorType:
		return roundPow2(int64(t.Len)) * sizeOf(t.ElemType)
	case *types.ArrayType:
		return int64(t.Len) * sizeOf(t.ElemType)
	case *types.StructType:
		var off, al int64 = 0, 1
		for _, f := range t.Fields {
			a := alignOf(f)
			if t.Packed {
				a = 1
			}
			off = alignUp(off, a) + sizeOf(f)
			if a > al {
				al = a
			}
		}
		return alignUp(off, al)
	}
	return 1
}

func alignOf(t types.Type) int64 {
	switch t := t.(type) {
	case *types.ArrayType:
		return alignOf(t.ElemType)
	case *types.StructType:
		var al int64 = 1
		if t.Packed {
			return 1
		}
		for _, f := range t.Fields {
			if a := alignOf(f); a > al {
				al = a
			}
		}
		return al
	}
	return sizeOf(t)
}

// fieldOffset is the byte offset of field i of struct t.
func fieldOffset(t *types.StructType, i int) int64 {
	var off int64
	for j, f := range t.Fields {
		a := alignOf(f)
		if t.Packed {
			a = 1
		}
		off = alignUp(off, a)
		if j == i {
			return off
		}
		off += sizeOf(f)
	}
	return off
}

func alignUp(x, a int64) int64 {
	if a <= 1 {
		return x
	}
	return (x + a - 1) / a * a
}

func roundPow2(x int64) int64 {
	p := int64(1)
	for p < x {
		p *= 2
	}
	return p
}
