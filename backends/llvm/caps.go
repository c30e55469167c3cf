package llvm

// CooperativeLaunches says that the LLVM backend has no cooperative
// launches: its modules run grid barriers as kernel relaunches, so the
// driver lowers for it with grid-sync off.
const CooperativeLaunches = false
