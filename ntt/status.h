#include "core/status.h" /* forwarding header: include core/status.h */
