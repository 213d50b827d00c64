// SPDX-License-Identifier: BSD-3-Clause
/*
 * The shadow doorbell protocol of the vfio driver (lib/be/vfio/dbbuf.h) against a recording
 * bus: the value always reaches the shadow slot, the MMIO register is written only when the
 * controller's event index lies in the range the update moves past (also across the 16-bit
 * wrap), always for a slot marked so (the admin queue), and always without a slot.
 */
#include "dbbuf.h"
#include "xnvme_test.h"

static struct {
	int nwrites;
	uint32_t off, val;
} g_rec;

static void
rec_write32(struct vfio_bus *bus, uint32_t off, uint32_t val)
{
	(void)bus;
	g_rec.nwrites++;
	g_rec.off = off;
	g_rec.val = val;
}

static const struct vfio_bus_ops g_ops = {.write32 = rec_write32};

/* one update from `old` to `val` with the controller's event index at `ei` */
static bool
ring(struct vfio_bus *bus, uint32_t old, uint32_t val, uint32_t ei, bool always)
{
	static uint32_t db, evt;
	struct vfio_dbbuf_slot slot = {.db = &db, .ei = &evt, .always = always};
	int before = g_rec.nwrites;
	bool wrote;

	db = old;
	evt = ei;
	wrote = vfio_dbbuf_ring(bus, 0x1008, &slot, val);
	CHECK_EQ(db, val);
	CHECK_EQ(g_rec.nwrites - before, wrote ? 1 : 0);
	if (wrote) {
		CHECK_EQ(g_rec.off, 0x1008u);
		CHECK_EQ(g_rec.val, val);
	}
	return wrote;
}

int
main(void)
{
	struct vfio_bus bus = {.ops = &g_ops};
	struct vfio_dbbuf_slot none = {0};

	/* the controller waits for the entry at 5 (event index 5): 5 -> 9 moves past it */
	CHECK(ring(&bus, 5, 9, 5, false));
	/* the event index at the new value or beyond: the controller still reads the shadow */
	CHECK(!ring(&bus, 5, 9, 9, false));
	CHECK(!ring(&bus, 5, 9, 20, false));
	/* event index inside (old, new): it asked to be told about an entry we passed */
	CHECK(ring(&bus, 5, 9, 7, false));
	/* behind the old value: the controller has not caught up, no event requested */
	CHECK(!ring(&bus, 5, 9, 3, false));
	/* across the 16-bit wrap (queue indexes compare modulo 2^16) */
	CHECK(ring(&bus, 0xfffe, 2, 0xffff, false));
	CHECK(!ring(&bus, 0xfffe, 2, 0xfffd, false));
	/* the admin queue's slot: the register every time */
	CHECK(ring(&bus, 5, 9, 20, true));
	/* no shadow slot: the register every time */
	g_rec.nwrites = 0;
	CHECK(vfio_dbbuf_ring(&bus, 0x100c, &none, 3));
	CHECK_EQ(g_rec.nwrites, 1);
	CHECK_EQ(g_rec.off, 0x100cu);
	return xnvme_test_result("vfio_dbbuf");
}
