// want vector_param: TRUE if dims_y >= 1
// AMD SimpleConvolution's shape: an element of a uint2 parameter bounds the loop. For height 0,
// bottom = height - 1 wraps to UINT_MAX and j <= bottom holds forever; Note [Vector parameters]
// in analysis/fromllvm makes dims.y a parameter that the condition can bound.
__kernel void vector_param(__global int *out, uint2 dims) {
  uint bottom = dims.y - 1;
  int s = 0;
  for (uint j = 0; j <= bottom; ++j)
    s = s + 1;
  out[get_global_id(0)] = s;
}
