// Small dense-matrix types shared by the oracle headers. Owned results are always row-major; inputs are
// views so a caller can hand in row- or column-major data (CK tests both) without copying.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace tp::ref {

enum class layout { row_major, col_major };

template <class T>
struct matrix_view {
  const T* data = nullptr;
  std::size_t rows = 0, cols = 0;
  layout order = layout::row_major;
  std::size_t ld = 0;  // leading dimension in elements; 0 means packed (cols for row-major, rows for col-major)

  matrix_view() = default;
  matrix_view(const T* d, std::size_t r, std::size_t c, layout o = layout::row_major, std::size_t leading = 0)
      : data(d), rows(r), cols(c), order(o), ld(leading != 0 ? leading : (o == layout::row_major ? c : r)) {
    if (ld < (o == layout::row_major ? c : r)) throw std::invalid_argument("matrix_view: leading dimension smaller than the matrix");
  }
  const T& operator()(std::size_t r, std::size_t c) const {
    return order == layout::row_major ? data[r * ld + c] : data[c * ld + r];
  }
};

template <class T>
struct matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<T> data;  // row-major, rows*cols

  matrix() = default;
  matrix(std::size_t r, std::size_t c, const T& init = T{}) : rows(r), cols(c), data(r * c, init) {}
  T& operator()(std::size_t r, std::size_t c) { return data[r * cols + c]; }
  const T& operator()(std::size_t r, std::size_t c) const { return data[r * cols + c]; }
  matrix_view<T> view() const { return matrix_view<T>(data.data(), rows, cols, layout::row_major); }
};

inline void check_gemm_shapes(std::size_t a_rows, std::size_t a_cols, std::size_t b_rows, std::size_t b_cols,
                              const char* who) {
  if (a_cols != b_rows)
    throw std::invalid_argument(std::string(who) + ": A is " + std::to_string(a_rows) + "x" + std::to_string(a_cols) +
                                " but B is " + std::to_string(b_rows) + "x" + std::to_string(b_cols) +
                                " (inner dimensions differ)");
}

}  // namespace tp::ref
