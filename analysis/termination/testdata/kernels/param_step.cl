// want param_step: TRUE if n <= 1073741824 && 1 <= step <= 1073741824
__kernel void param_step(__global int *out, int n, int step) {
  int s = 0;
  for (int i = 0; i < n; i = i + step)
    s = s + 1;
  out[get_local_id(0)] = s;
}
