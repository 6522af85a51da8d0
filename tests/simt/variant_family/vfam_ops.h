// The ops struct of the variant-builder test family: one host entry point per kernel.
#pragma once

#include <vector>

struct vfam_ops {
  std::vector<int> (*row_sums)(const std::vector<int>& matrix, unsigned rows, unsigned cols);
  std::vector<int> (*scaled)(const std::vector<int>& v);
};
