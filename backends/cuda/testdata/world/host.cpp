// host.cpp: a harness that runs world.h's host side (the fork, the
// parent's supervision, the meetings and allreduce) on the CPU, with
// stand-ins for the few CUDA calls it makes. world_test.go builds it with
// g++ after the runtime, the prelude, gpuc_device.h and world.h:
//
//	./host K CASE
//
// Each device's process prints a line; only device 0's reaches standard
// output. CASE says what the devices do (see main).

// The stand-ins; gpuc_fake_gpus is the machine's number of GPUs.
// CUDA_VISIBLE_DEVICES, where set, is a list of GPU numbers, which CUDA
// numbers from 0 up to the first that the machine lacks; with none in
// sight, cudaGetDeviceCount fails (cudaErrorNoDevice, 100).
static int gpuc_fake_gpus = 4, gpuc_fake_device = -1;
const char *cudaGetErrorString(cudaError_t) { return "fake error"; }
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaGetDeviceCount(int *n) {
  const char *seen = getenv("CUDA_VISIBLE_DEVICES");
  *n = gpuc_fake_gpus;
  if (seen != nullptr) {
    *n = 0;
    for (const char *p = seen; *p != '\0' && atoi(p) < gpuc_fake_gpus; p = strchr(p, ',') ? strchr(p, ',') + 1 : "") (*n)++;
  }
  return *n > 0 ? cudaSuccess : (cudaError_t)100;
}
cudaError_t cudaSetDevice(int d) {
  gpuc_fake_device = d;
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) {
  // Device d has (d + 1) GiB more than the reserve free.
  *free_bytes = GPUC_WORLD_RESERVE + ((size_t)(gpuc_world.rank + 1) << 30);
  *total = *free_bytes;
  return cudaSuccess;
}
static void gpuc_check_device_error(void) {}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  const long long k = atoll(argv[1]);
  const char *what = argv[2];
  if (strcmp(what, "ofone") == 0 || strcmp(what, "ofworld") == 0) {
    // gpuc_world_of_one on a few command lines, K the default of DEVICES.
    if (strcmp(what, "ofworld") == 0) setenv("GPUC_WORLD_OF_ONE", "world", 1);
    // W is a parameter of the world program alone, which the one-device
    // program does not take.
    const char *lines[][5] = {{"p", "N=3", nullptr}, {"p", "DEVICES=1", "N=3", nullptr}, {"p", "DEVICES=2", nullptr},
                              {"p", "DEVICES=1x", nullptr}, {"p", "--help", nullptr}, {"p", "W=2", "N=3", "WX=1", nullptr}};
    const char *const world_only[] = {"W=", nullptr};
    for (auto &line : lines) {
      char *args[5] = {};
      int n = 0;
      while (line[n] != nullptr) args[n] = (char *)line[n], n++;
      const bool one = gpuc_world_of_one(&n, args, k, world_only);
      printf("%d", (int)one);
      for (int i = 0; i < n; i++) printf(" %s", args[i]);
      printf(";");
    }
    printf("\n");
    return 0;
  }
  if (strcmp(what, "dist") == 0) {
    // gpuc_dist from every device of a world of K, blocks of 5 elements
    // in pools of 7 (a pool is larger than a block): every element, and
    // only it, at its owner's place.
    static int pools[GPUC_MAX_DEVICES][7];
    for (int d = 0; d < k; d++) gpuc_peer_base[d] = (unsigned char *)pools[d];
    gpuc_num_devs = (int)k;
    long long n = 0;
    for (int me = 0; me < k; me++) {
      gpuc_dev_id = me;
      for (long long i = 0; i < 5 * k; i++, n++) {
        // gpuc_dist32 too, with the 32-bit block and with 0 (every
        // access on the remote path).
        int *want = &pools[i / 5][i % 5];
        if (&gpuc_dist(pools[me], i, 5LL) != want || &gpuc_dist32(pools[me], (int)i, 5u, 5LL) != want ||
            &gpuc_dist32(pools[me], (unsigned)i, 0u, 5LL) != want || &gpuc_dist32(pools[me], (unsigned)i, 3u, 5LL) != want) {
          printf("device %d, element %lld: not its owner's\n", me, i);
          return 1;
        }
      }
    }
    // This device's elements with 32-bit indices: its whole block, the
    // rest of a short buffer, none where the world's indices pass 32 bits.
    gpuc_world.size = (int)k;
    gpuc_world.rank = (int)k - 1;
    const unsigned got[3] = {gpuc_world_local32(5, 5 * k), gpuc_world_local32(5, 5 * k - 2), gpuc_world_local32(1LL << 31, 1LL << 32)};
    const unsigned want[3] = {5u, 3u, k <= 2 ? 1u << 31 : 0u};
    for (int j = 0; j < 3; j++)
      if (got[j] != want[j]) {
        printf("gpuc_world_local32 case %d on %lld devices: %u, want %u\n", j, k, got[j], want[j]);
        return 1;
      }
    gpuc_world.rank = 0;
    gpuc_world.size = 1;
    printf("dist: %lld accesses\n", n);
    return 0;
  }
  if (strcmp(what, "few") == 0 || strcmp(what, "fewseen") == 0) gpuc_fake_gpus = 2;
  // fewseen, gpusseen: the user's CUDA_VISIBLE_DEVICES, which the world
  // keeps, each device taking its number in it.
  if (strcmp(what, "fewseen") == 0 || strcmp(what, "gpusseen") == 0) setenv("CUDA_VISIBLE_DEVICES", "0,1,2,3", 1);
  // linger: each device's process lingers after it has reported its exit
  // status, as the driver's teardown does; the parent does not wait.
  if (strcmp(what, "linger") == 0) atexit([] {
      if (gpuc_world.forked) sleep(3);
    });
  // startup: --time, which the parent's report of every process's start
  // and exit follows (gpuc_world_startup).
  gpuc_world_start(strcmp(what, "startup") == 0, k);
  if (strcmp(what, "startup") == 0 || strcmp(what, "linger") == 0) return 0;
  const int d = gpuc_world.rank;
  if (strcmp(what, "gpus") == 0 || strcmp(what, "gpusseen") == 0) {
    // Which GPU each device's process uses, and what it sees.
    const char *seen = getenv("CUDA_VISIBLE_DEVICES");
    const bool alone = seen != nullptr && atoi(seen) == d && strchr(seen, ',') == nullptr && gpuc_fake_device == 0;
    const bool kept = seen != nullptr && strcmp(seen, "0,1,2,3") == 0 && gpuc_fake_device == d;
    const int a = gpuc_world_allreduce<int>(GPUC_WORLD_ADD, alone), b = gpuc_world_allreduce<int>(GPUC_WORLD_ADD, kept);
    printf("gpus: %d alone, %d in the user's list, of %d\n", a, b, gpuc_world.size);
    return 0;
  }
  if (strcmp(what, "coop") == 0) {
    const long long blocks = gpuc_world_allreduce<long long>(GPUC_WORLD_ADD, gpuc_world_grid(2, true));
    const long long last = gpuc_world_allreduce<long long>(GPUC_WORLD_MAX, gpuc_world_blocks(2));
    const long long plain = gpuc_world_allreduce<long long>(GPUC_WORLD_ADD, gpuc_world_grid(2, false));
    printf("coop: %lld blocks, the last from %lld; plain: %lld blocks\n", blocks, last, plain);
    return 0;
  }
  if (strcmp(what, "ok") == 0) {
    // Many reductions in a row, so that the slots alternate often.
    long long sum = 0;
    for (int i = 0; i < 1000; i++) sum += gpuc_world_allreduce<long long>(GPUC_WORLD_ADD, (long long)(d + i));
    const int most = gpuc_world_allreduce<int>(GPUC_WORLD_MAX, d * 10);
    const unsigned least = gpuc_world_allreduce<unsigned>(GPUC_WORLD_MIN, (unsigned)(7 - d));
    const bool odd = gpuc_world_allreduce<bool>(GPUC_WORLD_XOR, d == 1);
    const signed char wrap = gpuc_world_allreduce<signed char>(GPUC_WORLD_ADD, (signed char)100);
    const double f = gpuc_world_allreduce<double>(GPUC_WORLD_ADD, 0.1 * (d + 1));
    const unsigned long long free_bytes = gpuc_world_free_memory();
    // A world launch of 10 blocks: this device's range; the part of 1000
    // elements (ir.WorldPart).
    const long long b0 = gpuc_world_blocks(10), b1 = b0 + gpuc_world_grid(10, true);
    printf("device %d of %d: %lld %d %u %d %d %.17g %llu GiB, blocks %lld-%lld, part %lld\n", d, gpuc_world.size, sum, most, least,
           (int)odd, (int)wrap, f, free_bytes >> 30, b0, b1, gpuc_world_block(1000));
    return 0;
  }
  if (strcmp(what, "profile") == 0) {
    // No launches: every device's kernels took 0 ms; device 0 counts its
    // own barriers and read-backs.
    gpuc_world.barriers = d + 2;
    gpuc_world.reads = 10 * d + 5;
    gpuc_world_profile();
    return 0;
  }
  printf("device %d before\n", d);
  fflush(stdout);
  (void)gpuc_world_allreduce<int>(GPUC_WORLD_ADD, 1);
  if (strcmp(what, "fail1") == 0 && d == 1) gpuc_fail("device 1 failed alone");
  if (strcmp(what, "fail0") == 0 && d == 0) gpuc_fail("device 0 failed alone");
  if (strcmp(what, "all") == 0) gpuc_raise("every device raised");
  if (strcmp(what, "exit3") == 0 && d == k - 1) exit(3);
  // The others wait for the one that failed, forever.
  (void)gpuc_world_allreduce<int>(GPUC_WORLD_ADD, 1);
  printf("device %d after\n", d);
  return 0;
}
