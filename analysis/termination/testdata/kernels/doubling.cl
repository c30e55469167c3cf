// want doubling: TRUE if n <= 1073741824
__kernel void doubling(__global int *out, int n) {
  int s = 0;
  for (int off = 1; off < n; off = off * 2)
    s = s + 1;
  out[get_local_id(0)] = s;
}
