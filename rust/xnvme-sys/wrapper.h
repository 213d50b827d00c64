/* Every public header of libxnvme; bindgen input for xnvme-sys. */
#include <libxnvme.h>
#include <libxnvme_znd.h>
#include <libxnvme_libconf.h>
