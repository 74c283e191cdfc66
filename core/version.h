/* The version of the library: meson.build's project version and the git
 * commit it was built from (the plug-in interface has its own number,
 * NB_PLUGIN_ABI_VERSION in ntt/variant.h). docs/api.md says what each
 * number covers. */
#ifndef NB_VERSION_H
#define NB_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

/* "MAJOR.MINOR.PATCH", the project version of the build; never NULL. It is
 * the version `nttbench --version` prints, reports record and
 * `pkg-config --modversion nttbench` gives for an installed copy. */
const char *nb_version(void);

/* `git describe --always --dirty` of the source tree the library was built
 * from ("unknown" outside a git checkout); never NULL. */
const char *nb_git_commit(void);

#ifdef __cplusplus
}
#endif
#endif
