// One thread that keeps the GPU busy for `ns` nanoseconds of GPU time (the global timer), then
// exits. Queued after the L2 flush and before a timing window's start event, it gives the host
// time to dispatch the timed call (cuBLAS needs tens of microseconds) while the GPU waits, so the
// window between the events holds GPU time only.
extern "C" __global__ void hold(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}
