// want grid_stride: FALSE
// (int)get_global_size(0) is 0 for a global size of 2^37 (block 128, grid 2^30): a zero stride.
__kernel void grid_stride(__global int *out, int n) {
  for (int i = get_global_id(0); i < n; i += get_global_size(0))
    out[i] = i;
}
