/* bench/collective/mpi_allreduce.c - in-place fp32 MPI_Allreduce time at 3 sizes and MPI_Init time (transport choice, docs/distributed.md). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  double t0 = MPI_Wtime();
  MPI_Init(&argc, &argv);
  double t_init = MPI_Wtime() - t0;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int sizes[] = {20201, 262144, 1048576}; /* fc_sgd's parameters; 1 MB; 4 MB */
  enum { kWarm = 5, kRuns = 41 };
  for (int s = 0; s < 3; s++) {
    int n = sizes[s];
    float* b = malloc((size_t)n * 4);
    for (int i = 0; i < n; i++) b[i] = rank + i * 1e-6f;
    double t[kRuns];
    for (int it = 0; it < kWarm + kRuns; it++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double a = MPI_Wtime();
      MPI_Allreduce(MPI_IN_PLACE, b, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      if (it >= kWarm) t[it - kWarm] = MPI_Wtime() - a;
    }
    qsort(t, kRuns, sizeof(double), cmp);
    if (rank == 0) printf("mpi allreduce %8d floats (%.2f MB): median %.3f ms\n", n, n * 4 / 1e6, t[kRuns / 2] * 1e3);
    free(b);
  }
  if (rank == 0) printf("mpi init %.1f ms\n", t_init * 1e3);
  MPI_Finalize();
  return 0;
}
