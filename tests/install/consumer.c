/* An out-of-tree program built against an installed nttbench, by Meson
 * (dependency('nttbench'), tests/install/meson.build) and by CMake through
 * pkg-config (tests/install/CMakeLists.txt, the three lines docs/api.md
 * shows). Prints the library's version and plug-in ABI, which
 * tests/scripts/test_install.sh compares with the installed version. */
#include <stdio.h>

#include "nttbench.h"

int main(void)
{
    printf("%s %u\n", nb_version(), nb_plugin_abi());
    return 0;
}
