// want walk: TRUE
__kernel void walk(__global const int *lens, __global int *out) {
  int s = 0;
  int k = 0;
  for (int r = 0; r < 4; r++) {
    for (int j = 0; j < lens[k]; j++)
      s = s + 1;
    k = k + 1;
  }
  out[get_local_id(0)] = s;
}
