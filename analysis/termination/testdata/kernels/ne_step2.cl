// want ne_step2: FALSE
__kernel void ne_step2(__global int *out, int n) {
  int s = 0;
  for (int i = 0; i != n; i = i + 2)
    s = s + 1;
  out[get_local_id(0)] = s;
}
