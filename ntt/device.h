#include "core/device.h" /* forwarding header: include core/device.h */
