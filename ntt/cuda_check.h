#include "core/cuda_check.h" /* forwarding header: include core/cuda_check.h */
