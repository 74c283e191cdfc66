/* Plug-in loading (ntt/variant.h): a shared object that registers its own
 * variants, refused before any of its functions is called (dlopen still runs
 * its static constructors) when it was built for a plug-in ABI this library
 * does not load (newer than its own, or older than NB_PLUGIN_ABI_OLDEST). Each
 * plug-in is opened RTLD_LOCAL: its symbols (nb_plugin_abi_version, and any
 * function two plug-ins built from one template both define) stay its own, so
 * a plug-in loaded later never binds to an earlier one's; the library's
 * functions resolve as usual. */
#include <dlfcn.h>
#include <stdio.h>

#include "ntt/registry.h"
#include "ntt/variant.h"

unsigned nb_plugin_abi(void) { return NB_PLUGIN_ABI_VERSION; }

nb_status nb_plugin_load(const char *path)
{
    if (!path || !path[0])
        return nb_set_error(NB_ERR_INVALID_ARG, "plug-in path is empty");
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return nb_set_error(NB_ERR_IO, "cannot load plug-in '%.200s': %.400s", path, dlerror());
    const unsigned *abi = dlsym(h, NB_PLUGIN_ABI_SYMBOL);
    if (!abi || *abi < NB_PLUGIN_ABI_OLDEST || *abi > NB_PLUGIN_ABI_VERSION) {
        char built[96];
        if (abi)
            snprintf(built, sizeof built, "was built for plug-in ABI %u", *abi);
        else
            snprintf(built, sizeof built, "has no plug-in ABI mark (no %s, which "
                     "NB_PLUGIN_ABI_EXPORT adds)", NB_PLUGIN_ABI_SYMBOL);
        dlclose(h);
        return nb_set_error(NB_ERR_UNSUPPORTED,
                            "plug-in '%.200s' %s, this library loads plug-in ABI %u to %u: "
                            "rebuild it against this version's headers",
                            path, built, NB_PLUGIN_ABI_OLDEST, NB_PLUGIN_ABI_VERSION);
    }
    nb_plugin_init_fn init;
    void *sym = dlsym(h, NB_PLUGIN_INIT_SYMBOL);
    if (!sym)
        return nb_set_error(NB_ERR_IO, "plug-in '%.200s' exports no %s()", path,
                            NB_PLUGIN_INIT_SYMBOL);
    *(void **)&init = sym;
    nb_registry_set_plugin_abi(*abi);
    nb_status s = init();
    nb_registry_set_plugin_abi(0);
    if (s != NB_OK) {
        char why[320]; /* nb_last_error() is the buffer nb_set_error writes */
        snprintf(why, sizeof why, "%s", nb_last_error());
        if (why[0])
            return nb_set_error(NB_ERR_IO, "plug-in '%.200s' failed to initialise: %.300s", path,
                                why);
        return nb_set_error(NB_ERR_IO, "plug-in '%.200s' failed to initialise: %s() returned %s "
                            "with no message", path, NB_PLUGIN_INIT_SYMBOL, nb_status_str(s));
    }
    return NB_OK; /* the handle stays open: its variants live in it */
}
