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

// A tensor of `tensor`'s shape, strides and dtype on `device` whose storage holds no bytes:
// what a freed tensor built on the host becomes on the training device, without allocating
// there (a later allocate_storage_bytes fills it from the device's allocator).
inline torch::Tensor unallocated_on(const torch::Tensor& tensor, torch::Device device) {
  torch::Tensor out = torch::empty({0}, tensor.options().device(device));
  out.unsafeGetTensorImpl()->set_sizes_and_strides(tensor.sizes(), tensor.strides());
  return out;
}

}  // namespace gpubench
