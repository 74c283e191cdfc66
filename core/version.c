/* nb_version and nb_git_commit: the strings meson writes into the build
 * (core/meson.build: the project version, and git describe at build time). */
#include "core/version.h"
#include "core/nb_commit.h"
#include "core/nb_version.h"

const char *nb_version(void) { return NB_VERSION_STRING; }

const char *nb_git_commit(void) { return NB_GIT_COMMIT; }
