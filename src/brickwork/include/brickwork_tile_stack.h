// brickwork runtime: tile stacks (wp.tile_stack). A separate header, included only by generated units that
// use one. A block is one thread, so a stack is that thread's own: its values inline and a count, and each
// operation is the one thread's (Warp's CPU behaviour: a push lands unless the stack is full).
#pragma once
#include "brickwork.h"

namespace bw {

template <class T, int N> struct tile_stack_t {
    T data[N];
    int32_t count;
};

// The slot the value went to, or -1 when has_value is false or the stack is full (the value is dropped).
template <class T, int N> BW_INLINE int32_t tile_stack_push(tile_stack_t<T, N>& s, const T& value, bool has_value) {
    if (!has_value || s.count >= N) return -1;
    s.data[s.count] = value;
    return s.count++;
}

// The top value and its slot, or a zero value and -1 when the stack is empty.
template <class T, int N> BW_INLINE void tile_stack_pop(tile_stack_t<T, N>& s, T& value, int32_t& slot) {
    if (s.count == 0) {
        value = T{};
        slot = -1;
        return;
    }
    slot = --s.count;
    value = s.data[slot];
}

template <class T, int N> BW_INLINE int32_t tile_stack_count(const tile_stack_t<T, N>& s) { return s.count; }

template <class T, int N> BW_INLINE int32_t tile_stack_clear(tile_stack_t<T, N>& s) {
    s.count = 0;
    return 0;
}

}  // namespace bw
