// want thread_spin: FALSE
__kernel void thread_spin(__global int *out) {
  int t = get_local_id(0);
  while (t >= 5)
    out[t] = t;
}
