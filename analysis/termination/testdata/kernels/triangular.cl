// want triangular: TRUE
__kernel void triangular(__global int *out, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      s = s + 1;
  out[get_local_id(0)] = s;
}
