// want square: TRUE if n <= 1073741824
__kernel void square(__global int *out, int n) {
  int s = 0;
  for (int p = 2; p * p < n; p++)
    s = s + 1;
  out[get_local_id(0)] = s;
}
