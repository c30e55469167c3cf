package cuda

// CooperativeLaunches says that the CUDA C backend runs a launch marked
// coop as one cooperative kernel whose grid barriers are grid-wide syncs
// (Note [Grid sync] in package passes).
const CooperativeLaunches = true
