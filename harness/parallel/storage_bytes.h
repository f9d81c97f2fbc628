#pragma once
// A tensor's storage emptied and filled again in place, its shape, strides and every view of
// it kept: how fsdp frees a gathered unit and ep-K the experts a rank does not hold. On a GPU
// the caching allocator orders the reuse of freed bytes after the kernels queued on the stream.
#include <cstddef>

#include <torch/torch.h>

namespace gpubench {

// The storage gives its bytes back (0 bytes; reading it is an error until refilled).
inline void free_storage_bytes(const torch::Tensor& tensor) {
  c10::StorageImpl* storage = tensor.storage().unsafeGetStorageImpl();
  storage->set_data_ptr_noswap(at::DataPtr(nullptr, tensor.device()));
  storage->set_nbytes(0);
}

// The storage holds `bytes` again, uninitialised, from its own allocator.
inline void allocate_storage_bytes(const torch::Tensor& tensor, std::size_t bytes) {
  c10::StorageImpl* storage = tensor.storage().unsafeGetStorageImpl();
  storage->set_data_ptr_noswap(storage->allocator()->allocate(bytes));
  storage->set_nbytes(bytes);
}

}  // namespace gpubench
