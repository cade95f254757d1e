//! What the firmware and the kernel say about a hypervisor: the DMI system vendor and product
//! name (`/sys/class/dmi/id/sys_vendor`, `product_name`: `QEMU`, `Standard PC (Q35 + ICH9,
//! 2009)`) and Xen's `/sys/hypervisor/type`.

use super::error::FactError;
use super::read;
use super::root::Facts;

impl Facts {
    /// `/sys/class/dmi/id/sys_vendor`, e.g. `QEMU`, `Dell Inc.`, `Microsoft Corporation`.
    pub fn dmi_sys_vendor(&self) -> Result<String, FactError> {
        read::trimmed(&self.path("sys/class/dmi/id/sys_vendor"))
    }

    /// `/sys/class/dmi/id/product_name`, e.g. `Standard PC (Q35 + ICH9, 2009)`.
    pub fn dmi_product_name(&self) -> Result<String, FactError> {
        read::trimmed(&self.path("sys/class/dmi/id/product_name"))
    }

    /// `/sys/hypervisor/type`: `xen` in a Xen guest (absent elsewhere).
    pub fn hypervisor_type(&self) -> Result<String, FactError> {
        read::trimmed(&self.path("sys/hypervisor/type"))
    }
}
