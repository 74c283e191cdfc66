/* Internal to ntt/: what the plug-in loader tells the registry. While a
 * plug-in's nb_plugin_init runs, the registry knows the plug-in ABI it was
 * built for, so that a variant struct of an older, shorter layout is copied
 * into a full-size one rather than read past its end. */
#ifndef NB_REGISTRY_H
#define NB_REGISTRY_H

/* The ABI of the plug-in whose init is running, NB_PLUGIN_ABI_OLDEST ..
 * NB_PLUGIN_ABI_VERSION; 0 after it (registrations then use this library's
 * layout). Not thread-safe, like registration itself. */
void nb_registry_set_plugin_abi(unsigned abi);

#endif
