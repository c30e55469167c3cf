// want zero_step: FALSE
__kernel void zero_step(__global int *out, int n) {
  int s = 0;
  int step = 0;
  for (int i = 0; i < n; i = i + step)
    s = s + 1;
  out[get_local_id(0)] = s;
}
