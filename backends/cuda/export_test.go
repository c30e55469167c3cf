package cuda

// The g++ checks, for the tests of package cuda_test.
var (
	GxxStub   = gxxStub
	BothSides = bothSides
)
