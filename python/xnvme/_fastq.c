/*
 * xnvme._fastq: the optional compiled fast path of xnvme.Queue.
 *
 * Per command, the pure-ctypes Queue pays one ctypes call per submission step and a C->Python
 * callback trampoline per completion. This module moves both to C:
 *
 *   - a C completion callback (installed with xnvme_queue_set_cb) records (context, status,
 *     result) in a per-queue array and puts the context back into the pool; it never touches
 *     Python objects, so it may run with the GIL released (xnvme_queue_drain called through
 *     ctypes);
 *   - submit()/submit_batch() take a context, register the Python entry of the
 *     command in the Queue's pending dict (key: the context address, as in the ctypes path)
 *     and call xnvme_nvm_read/xnvme_nvm_write, in one call for one or many commands;
 *   - poke_dispatch() pokes, then runs the Python callbacks of the successful completions
 *     from a copy of the records (after the C poke returned, never from inside a library
 *     callback); poke()/collect() return [(entry, status, result), ...] with every entry
 *     already removed from the pending dict.
 *
 * It includes no libxnvme header and does not link libxnvme: the Python side passes the
 * addresses of the few C functions it calls (from the ctypes handle of the loaded library) and
 * the offsets of the completion status and result in struct xnvme_cmd_ctx (from the ctypes
 * bindings, whose layout the test-suite checks against the C headers).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int (*nvm_io_fn)(void *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb, void *dbuf,
			 void *mbuf);
typedef void *(*get_ctx_fn)(void *queue);
typedef int (*put_ctx_fn)(void *queue, void *ctx);
typedef int (*poke_fn)(void *queue, uint32_t max);
typedef void (*queue_cb)(void *ctx, void *cb_arg);
typedef int (*set_cb_fn)(void *queue, queue_cb cb, void *cb_arg);

static PyObject *zero;     /* the int 0 */
static PyObject *one;      /* the int 1 */
static PyObject *str_read; /* "read": the `what` of a read's entry */

struct rec {
	void *ctx;
	uint32_t result;
	uint16_t status;
};

typedef struct {
	PyObject_HEAD void *queue;
	uint32_t nsid;
	nvm_io_fn io[2]; /* read, write */
	get_ctx_fn get_ctx;
	put_ctx_fn put_ctx;
	poke_fn poke;
	set_cb_fn set_cb;
	Py_ssize_t status_off;
	Py_ssize_t result_off;
	struct rec *recs;
	size_t nrecs;
	size_t caprecs;
	int lost;               /* a completion could not be recorded (out of memory) */
	PyObject *pending;      /* dict: context address (int) -> entry */
	PyObject *cpl_type;     /* xnvme.Completion */
	PyObject *errors;       /* list: exceptions raised by callbacks */
	Py_ssize_t slot_off[7]; /* Completion's __slots__ in argument order; [0] < 0: unknown */
	Py_ssize_t depth;       /* commands the queue holds */
	Py_ssize_t lba_nbytes;  /* set_fast(): 0 until then */
	PyObject *slow;   /* set_fast(): Queue.submit_read, for every case but the common one */
	PyObject *failed; /* set_fast(): raises the XnvmeError of a refused submission */
} FastQueue;

static const char *const cpl_slots[7] = {"ok", "sct", "sc", "result", "buffer", "error", "tag"};

/* Offsets of the __slots__ members of the Completion class, so that fq_poke_dispatch can build one
 * without running its Python __init__ (same attributes, same values). Any surprise (another
 * kind of class): slot_off[0] = -1 and the class is called instead. */
static void
fq_find_slots(FastQueue *self)
{
	self->slot_off[0] = -1;
	if (!PyType_Check(self->cpl_type) ||
	    ((PyTypeObject *)self->cpl_type)->tp_alloc != PyType_GenericAlloc) {
		return;
	}
	for (int i = 0; i < 7; ++i) {
		PyObject *descr = PyObject_GetAttrString(self->cpl_type, cpl_slots[i]);
		PyMemberDef *m;

		if (!descr) {
			PyErr_Clear();
			self->slot_off[0] = -1;
			return;
		}
		if (!Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
			Py_DECREF(descr);
			self->slot_off[0] = -1;
			return;
		}
		m = ((PyMemberDescrObject *)descr)->d_member;
		if (m->type != T_OBJECT_EX || (m->flags & READONLY)) {
			Py_DECREF(descr);
			self->slot_off[0] = -1;
			return;
		}
		self->slot_off[i] = m->offset;
		Py_DECREF(descr);
	}
}

static PyObject *
fq_new_cpl(FastQueue *self, PyObject *const *cargs)
{
	PyTypeObject *tp = (PyTypeObject *)self->cpl_type;
	PyObject *obj;

	if (self->slot_off[0] < 0) {
		return PyObject_Vectorcall(self->cpl_type, cargs, 7, NULL);
	}
	obj = tp->tp_alloc(tp, 0);
	if (!obj) {
		return NULL;
	}
	for (int i = 0; i < 7; ++i) {
		Py_INCREF(cargs[i]);
		*(PyObject **)((char *)obj + self->slot_off[i]) = cargs[i];
	}
	return obj;
}

/* Appends a completion record; 0, or -1 when out of memory (the completion is lost) */
static int
fq_cb_record(FastQueue *fq, void *ctx, uint16_t status, uint32_t result)
{
	struct rec *rec;

	if (fq->nrecs == fq->caprecs) {
		size_t cap = fq->caprecs ? fq->caprecs * 2 : 64;
		struct rec *grown = realloc(fq->recs, cap * sizeof(*grown));

		if (!grown) {
			fq->lost = 1;
			return -1;
		}
		fq->recs = grown;
		fq->caprecs = cap;
	}
	rec = &fq->recs[fq->nrecs++];
	rec->ctx = ctx;
	rec->status = status;
	rec->result = result;
	return 0;
}

static void
fq_cb(void *ctx, void *cb_arg)
{
	FastQueue *fq = cb_arg;
	uint32_t result;
	uint16_t status;

	memcpy(&status, (char *)ctx + fq->status_off, sizeof(status));
	memcpy(&result, (char *)ctx + fq->result_off, sizeof(result));
	fq_cb_record(fq, ctx, status, result);
	fq->put_ctx(fq->queue, ctx);
}

static void *
as_ptr(PyObject *obj)
{
	return PyLong_AsVoidPtr(obj);
}

static int
fq_init(FastQueue *self, PyObject *args, PyObject *kwds)
{
	PyObject *oq, *ord, *owr, *oget, *oput, *opoke, *oset, *pending, *cpl_type, *errors;
	unsigned long nsid;
	Py_ssize_t status_off, result_off, depth;
	void *fn[6];
	int ret;

	(void)kwds;
	if (!PyArg_ParseTuple(args, "OkOOOOOOnnnO!OO!", &oq, &nsid, &ord, &owr, &oget, &oput,
			      &opoke, &oset, &status_off, &result_off, &depth, &PyDict_Type,
			      &pending, &cpl_type, &PyList_Type, &errors)) {
		return -1;
	}
	if (self->queue) {
		PyErr_SetString(PyExc_RuntimeError, "FastQueue already initialised");
		return -1;
	}
	self->queue = as_ptr(oq);
	fn[0] = as_ptr(ord);
	fn[1] = as_ptr(owr);
	fn[2] = as_ptr(oget);
	fn[3] = as_ptr(oput);
	fn[4] = as_ptr(opoke);
	fn[5] = as_ptr(oset);
	if (PyErr_Occurred()) {
		return -1;
	}
	for (int i = 0; i < 6; ++i) {
		if (!fn[i]) {
			PyErr_SetString(PyExc_ValueError, "NULL function address");
			return -1;
		}
	}
	if (!self->queue || status_off < 0 || result_off < 0 || depth < 1) {
		PyErr_SetString(PyExc_ValueError, "invalid queue, offset or depth");
		return -1;
	}
	self->nsid = (uint32_t)nsid;
	/* object pointer <-> function pointer: POSIX guarantees the round trip */
	memcpy(&self->io[0], &fn[0], sizeof(void *));
	memcpy(&self->io[1], &fn[1], sizeof(void *));
	memcpy(&self->get_ctx, &fn[2], sizeof(void *));
	memcpy(&self->put_ctx, &fn[3], sizeof(void *));
	memcpy(&self->poke, &fn[4], sizeof(void *));
	memcpy(&self->set_cb, &fn[5], sizeof(void *));
	self->status_off = status_off;
	self->result_off = result_off;
	self->depth = depth;
	self->caprecs = (size_t)depth + 1;
	self->recs = malloc(self->caprecs * sizeof(*self->recs));
	if (!self->recs) {
		self->caprecs = 0;
		PyErr_NoMemory();
		return -1;
	}
	Py_INCREF(pending);
	self->pending = pending;
	Py_INCREF(cpl_type);
	self->cpl_type = cpl_type;
	Py_INCREF(errors);
	self->errors = errors;
	fq_find_slots(self);
	/* the queue holds a borrowed pointer: the Python Queue keeps this object alive until
	 * after xnvme_queue_term() */
	ret = self->set_cb(self->queue, fq_cb, self);
	if (ret) {
		errno = ret < 0 ? -ret : ret;
		PyErr_SetFromErrno(PyExc_OSError);
		return -1;
	}
	return 0;
}

/* GC support: a pending entry's callback may refer back to the Queue that owns this object */
static int
fq_traverse(FastQueue *self, visitproc visit, void *arg)
{
	Py_VISIT(self->pending);
	Py_VISIT(self->cpl_type);
	Py_VISIT(self->errors);
	Py_VISIT(self->slow);
	Py_VISIT(self->failed);
	return 0;
}

static int
fq_clear(FastQueue *self)
{
	Py_CLEAR(self->pending);
	Py_CLEAR(self->cpl_type);
	Py_CLEAR(self->errors);
	Py_CLEAR(self->slow);
	Py_CLEAR(self->failed);
	return 0;
}

static int
fq_usable(FastQueue *self)
{
	if (!self->pending || !self->cpl_type || !self->errors) {
		PyErr_SetString(PyExc_ValueError, "FastQueue not initialised or cleared");
		return 0;
	}
	if (!self->queue) {
		PyErr_SetString(PyExc_ValueError, "operation on a closed xnvme.Queue");
		return 0;
	}
	return 1;
}

static void
fq_dealloc(FastQueue *self)
{
	PyObject_GC_UnTrack(self);
	fq_clear(self);
	free(self->recs);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Pops the pending entry of a context: a new reference, None when there is none (NULL with
 * an exception on failure). */
static PyObject *
fq_pop_entry(FastQueue *self, void *ctx)
{
	PyObject *key = PyLong_FromVoidPtr(ctx), *entry;

	if (!key) {
		return NULL;
	}
	entry = PyDict_GetItemWithError(self->pending, key);
	if (entry) {
		Py_INCREF(entry);
		if (PyDict_DelItem(self->pending, key)) {
			Py_CLEAR(entry);
		}
	} else if (!PyErr_Occurred()) {
		entry = Py_None;
		Py_INCREF(entry);
	}
	Py_DECREF(key);
	return entry;
}

/* Build [(entry, status, result), ...] from the records and pop the entries from pending. */
static PyObject *
fq_take(FastQueue *self)
{
	size_t n = self->nrecs;
	PyObject *out;

	if (!fq_usable(self)) {
		return NULL;
	}
	out = PyList_New((Py_ssize_t)n);

	if (!out) {
		return NULL;
	}
	for (size_t i = 0; i < n; ++i) {
		struct rec *rec = &self->recs[i];
		PyObject *entry = fq_pop_entry(self, rec->ctx), *tup;

		if (!entry) {
			goto fail;
		}
		tup = Py_BuildValue("(NIk)", entry, (unsigned int)rec->status,
				    (unsigned long)rec->result);
		if (!tup) {
			goto fail;
		}
		PyList_SET_ITEM(out, (Py_ssize_t)i, tup);
	}
	self->nrecs = 0;
	return out;

fail:
	/* the records stay: a later collect() retries (entries already popped are lost) */
	Py_DECREF(out);
	return NULL;
}

/* xnvme_queue_poke(max = arg) into *ret (-ENOMEM when a completion could not be recorded);
 * 0, or -1 with an exception set. */
static int
fq_do_poke(FastQueue *self, PyObject *arg, int *ret)
{
	unsigned long max = PyLong_AsUnsignedLong(arg);

	if (max == (unsigned long)-1 && PyErr_Occurred()) {
		return -1;
	}
	if (!fq_usable(self)) {
		return -1;
	}
	*ret = self->poke(self->queue, (uint32_t)max);
	if (self->lost) {
		self->lost = 0;
		*ret = -ENOMEM;
	}
	return 0;
}

static PyObject *
fq_poke(FastQueue *self, PyObject *arg)
{
	PyObject *done;
	int ret;

	if (fq_do_poke(self, arg, &ret)) {
		return NULL;
	}
	done = fq_take(self);
	if (!done) {
		return NULL;
	}
	return Py_BuildValue("(iN)", ret, done);
}

/* Keeps the exception a callback raised (with its traceback) in the errors list. */
static void
fq_keep_error(FastQueue *self)
{
	PyObject *type, *value, *tb;

	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	if (tb && value) {
		PyException_SetTraceback(value, tb);
	}
	if (value && PyList_Append(self->errors, value)) {
		PyErr_Clear();
	}
	Py_XDECREF(type);
	Py_XDECREF(value);
	Py_XDECREF(tb);
}

#define DISPATCH_STACK 64

/*
 * poke_dispatch(max) -> (ret, reaped, rest): pokes, pops the pending entry (callback, buf,
 * what, tag) of every completion reaped, and then, for each one whose status is success, runs
 * callback(Completion(True, 0, 0, result, buf, None, tag)) right here; an exception a callback
 * raises is appended to the errors list. rest: the completions left to Python (error statuses
 * and other entries) as [(entry, status, result), ...]. Records and entries are taken before
 * any callback runs: a callback may submit (reusing the contexts just reaped, so their
 * addresses are pending keys again) and even poke this queue.
 */
static PyObject *
fq_poke_dispatch(FastQueue *self, PyObject *arg)
{
	struct rec rstack[DISPATCH_STACK], *recs = rstack;
	PyObject *estack[DISPATCH_STACK], **entries = estack;
	PyObject *rest = NULL, *res = NULL;
	size_t n, i = 0, popped = 0;
	int ret;

	if (fq_do_poke(self, arg, &ret)) {
		return NULL;
	}
	n = self->nrecs;
	rest = PyList_New(0);
	if (!rest) {
		return NULL; /* the records stay for a later collect() */
	}
	if (n > DISPATCH_STACK) {
		recs = malloc(n * sizeof(*recs));
		entries = malloc(n * sizeof(*entries));
		if (!recs || !entries) {
			free(recs);
			free(entries);
			Py_DECREF(rest);
			return PyErr_NoMemory();
		}
	}
	memcpy(recs, self->recs, n * sizeof(*recs));
	self->nrecs = 0;
	for (popped = 0; popped < n; ++popped) {
		entries[popped] = fq_pop_entry(self, recs[popped].ctx);
		if (!entries[popped]) {
			goto out;
		}
	}
	for (i = 0; i < n; ++i) {
		PyObject *entry = entries[i], *cargs[7], *cpl, *done;

		if (recs[i].status & 0xFFE || !PyTuple_CheckExact(entry) ||
		    PyTuple_GET_SIZE(entry) != 4) {
			PyObject *tup = Py_BuildValue("(OIk)", entry, (unsigned int)recs[i].status,
						      (unsigned long)recs[i].result);

			if (!tup || PyList_Append(rest, tup)) {
				Py_XDECREF(tup);
				goto out;
			}
			Py_DECREF(tup);
			continue;
		}
		if (PyTuple_GET_ITEM(entry, 0) == Py_None) {
			continue;
		}
		cargs[0] = Py_True;
		cargs[1] = cargs[2] = zero; /* sct, sc */
		cargs[3] = PyLong_FromUnsignedLong(recs[i].result);
		cargs[4] = PyTuple_GET_ITEM(entry, 1);
		cargs[5] = Py_None;
		cargs[6] = PyTuple_GET_ITEM(entry, 3);
		cpl = cargs[3] ? fq_new_cpl(self, cargs) : NULL;
		Py_XDECREF(cargs[3]);
		done = cpl ? PyObject_CallOneArg(PyTuple_GET_ITEM(entry, 0), cpl) : NULL;
		Py_XDECREF(cpl);
		if (done) {
			Py_DECREF(done);
		} else {
			fq_keep_error(self);
		}
	}
	res = Py_BuildValue("(inO)", ret, (Py_ssize_t)n, rest);
out:
	/* out of memory: completions whose entry was not popped go back for a later collect();
	 * those popped and not handled are lost (their callbacks never run) */
	for (size_t j = popped; j < n; ++j) {
		fq_cb_record(self, recs[j].ctx, recs[j].status, recs[j].result);
	}
	for (size_t j = 0; j < popped; ++j) {
		Py_DECREF(entries[j]);
	}
	Py_XDECREF(rest);
	if (recs != rstack) {
		free(recs);
		free(entries);
	}
	return res;
}

static PyObject *
fq_collect(FastQueue *self, PyObject *Py_UNUSED(ignored))
{
	return fq_take(self);
}

/* Submit one command; returns 0, or sets *stage (0: no context, 1: the submission failed,
 * 2: a Python exception is set), *status and returns the error. */
static int
fq_submit_one(FastQueue *self, int write, unsigned long long slba, unsigned long nlb, void *buf,
	      PyObject *entry, int *stage, unsigned int *status)
{
	PyObject *key;
	void *ctx;
	int ret;

	ctx = self->get_ctx(self->queue);
	if (!ctx) {
		*stage = 0;
		*status = 0;
		return errno ? -errno : -ENOMEM;
	}
	key = PyLong_FromVoidPtr(ctx);
	if (!key || PyDict_SetItem(self->pending, key, entry)) {
		Py_XDECREF(key);
		self->put_ctx(self->queue, ctx);
		*stage = 2;
		return -ENOMEM;
	}
	ret = self->io[write](ctx, self->nsid, slba, (uint16_t)(nlb - 1), buf, NULL);
	if (ret) {
		uint16_t st;

		memcpy(&st, (char *)ctx + self->status_off, sizeof(st));
		*stage = 1;
		*status = st;
		if (PyDict_DelItem(self->pending, key)) {
			PyErr_Clear();
		}
		self->put_ctx(self->queue, ctx);
	}
	Py_DECREF(key);
	return ret;
}

/* The common prologue of submit() and submit_batch(): the argument count, a usable queue,
 * write = args[0] and nlb = args[2] (1..65536). 0, or -1 with an exception set. */
static int
fq_io_args(FastQueue *self, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want,
	   const char *usage, int *write, unsigned long *nlb)
{
	if (nargs != want) {
		PyErr_SetString(PyExc_TypeError, usage);
		return -1;
	}
	if (!fq_usable(self)) {
		return -1;
	}
	*write = PyObject_IsTrue(args[0]);
	*nlb = PyLong_AsUnsignedLong(args[2]);
	if (*write < 0 || PyErr_Occurred()) {
		return -1;
	}
	if (*nlb < 1 || *nlb > 0x10000) {
		PyErr_SetString(PyExc_ValueError, "nlb must be 1..65536");
		return -1;
	}
	return 0;
}

/* submit(write, slba, nlb, bufaddr, entry) -> None | (stage, ret, status) */
static PyObject *
fq_submit(FastQueue *self, PyObject *const *args, Py_ssize_t nargs)
{
	unsigned long long slba;
	unsigned long nlb;
	unsigned int status = 0;
	int write, stage = 0, ret;
	void *buf;

	if (fq_io_args(self, args, nargs, 5, "submit(write, slba, nlb, bufaddr, entry)", &write,
		       &nlb)) {
		return NULL;
	}
	slba = PyLong_AsUnsignedLongLong(args[1]);
	buf = PyLong_AsVoidPtr(args[3]);
	if (PyErr_Occurred()) {
		return NULL;
	}
	ret = fq_submit_one(self, write, slba, nlb, buf, args[4], &stage, &status);
	if (!ret) {
		Py_RETURN_NONE;
	}
	if (stage == 2) {
		return NULL;
	}
	return Py_BuildValue("(iiI)", stage, ret, status);
}

static PyObject *str_closed; /* "_closed": the attribute of a closed xnvme.Buffer */

/*
 * submit_batch(write, slbas, nlb, minbytes, bufs, callback, tags, what) -> (n, stage, ret,
 * status): the batched form of Queue.submit_read/submit_write. bufs are Buffer objects (any
 * object with the buffer protocol and a false `_closed`, at least minbytes long); the entry
 * (callback, buf, what, tag) of every command is built here, tags is None or a sequence as
 * long as slbas. Submits until the sequences end, a context is missing or a submission
 * fails; n were submitted. A bad buffer raises ValueError after the n before it went out
 * (their entries are pending, so their callbacks run).
 */
static PyObject *
fq_submit_batch(FastQueue *self, PyObject *const *args, Py_ssize_t nargs)
{
	PyObject *slbas = NULL, *bufs = NULL, *tags = NULL, *res = NULL;
	unsigned int status = 0;
	unsigned long nlb;
	Py_ssize_t n, i = 0, minbytes;
	int write, stage = 0, ret = 0;

	if (fq_io_args(self, args, nargs, 8,
		       "submit_batch(write, slbas, nlb, minbytes, bufs, callback, tags, what)",
		       &write, &nlb)) {
		return NULL;
	}
	minbytes = PyLong_AsSsize_t(args[3]);
	if (PyErr_Occurred()) {
		return NULL;
	}
	slbas = PySequence_Fast(args[1], "slbas must be a sequence");
	bufs = slbas ? PySequence_Fast(args[4], "bufs must be a sequence") : NULL;
	if (bufs && args[6] != Py_None) {
		tags = PySequence_Fast(args[6], "tags must be None or a sequence");
	}
	if (!slbas || !bufs || (args[6] != Py_None && !tags)) {
		goto out;
	}
	n = PySequence_Fast_GET_SIZE(slbas);
	if (PySequence_Fast_GET_SIZE(bufs) != n || (tags && PySequence_Fast_GET_SIZE(tags) != n)) {
		PyErr_SetString(PyExc_ValueError, "slbas, bufs and tags differ in length");
		goto out;
	}
	for (i = 0; i < n; ++i) {
		PyObject *buf = PySequence_Fast_GET_ITEM(bufs, i), *closed, *entry;
		unsigned long long slba =
			PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(slbas, i));
		Py_buffer view;
		int bad;

		if (PyErr_Occurred()) {
			goto out;
		}
		closed = PyObject_GetAttr(buf, str_closed);
		bad = closed ? PyObject_IsTrue(closed) : -1;
		Py_XDECREF(closed);
		if (bad < 0 || PyObject_GetBuffer(buf, &view, PyBUF_SIMPLE)) {
			goto out;
		}
		PyBuffer_Release(&view); /* the entry below keeps the buffer alive */
		if (bad || view.len < minbytes) {
			PyErr_SetString(PyExc_ValueError, "buffer closed or too small");
			goto out;
		}
		entry = PyTuple_Pack(4, args[5], buf, args[7],
				     tags ? PySequence_Fast_GET_ITEM(tags, i) : Py_None);
		if (!entry) {
			goto out;
		}
		ret = fq_submit_one(self, write, slba, nlb, view.buf, entry, &stage, &status);
		Py_DECREF(entry);
		if (ret) {
			if (stage == 2) {
				goto out;
			}
			break;
		}
	}
	res = Py_BuildValue("(niiI)", i, stage, ret, status);
out:
	Py_XDECREF(slbas);
	Py_XDECREF(bufs);
	Py_XDECREF(tags);
	return res;
}

/* set_fast(lba_nbytes, slow, failed): enables submit_read; detach() disables it for good */
static PyObject *
fq_set_fast(FastQueue *self, PyObject *args)
{
	PyObject *slow, *failed;
	Py_ssize_t lba_nbytes;

	if (!PyArg_ParseTuple(args, "nOO", &lba_nbytes, &slow, &failed)) {
		return NULL;
	}
	if (lba_nbytes < 1 || !PyCallable_Check(slow) || !PyCallable_Check(failed)) {
		PyErr_SetString(PyExc_ValueError, "set_fast(lba_nbytes > 0, callable, callable)");
		return NULL;
	}
	Py_INCREF(slow);
	Py_XSETREF(self->slow, slow);
	Py_INCREF(failed);
	Py_XSETREF(self->failed, failed);
	self->lba_nbytes = lba_nbytes;
	Py_RETURN_NONE;
}

static PyObject *
fq_detach(FastQueue *self, PyObject *Py_UNUSED(ignored))
{
	self->queue = NULL;
	self->lba_nbytes = 0;
	Py_RETURN_NONE;
}

static PyObject *str_kw[5]; /* "slba", "nlb", "callback", "buf", "tag" */

/*
 * submit_read(slba, nlb=1, callback=None, buf=None, tag=None) -> buf: Queue.submit_read of
 * the common case (a Buffer given, room in the queue) in C, without a Python frame; anything
 * else (no buffer, a full queue, a detached queue, bad arguments) goes to `slow`, the Python
 * method, with the same arguments.
 */
static PyObject *
fq_submit_read(FastQueue *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
	PyObject *a[5] = {NULL, NULL, Py_None, Py_None, Py_None}, *entry, *closed;
	Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
	unsigned long long slba;
	unsigned int status = 0;
	unsigned long nlb = 1;
	int stage = 0, ret, bad;
	Py_buffer view;

	if (nargs > 5) {
		PyErr_SetString(PyExc_TypeError, "submit_read() takes at most 5 arguments");
		return NULL;
	}
	for (Py_ssize_t i = 0; i < nargs; ++i) {
		a[i] = args[i];
	}
	for (Py_ssize_t k = 0; k < nkw; ++k) {
		PyObject *name = PyTuple_GET_ITEM(kwnames, k);
		int i;

		for (i = 0; i < 5; ++i) {
			if (name == str_kw[i] || PyUnicode_Compare(name, str_kw[i]) == 0) {
				break;
			}
		}
		if (i == 5 || i < nargs) {
			PyErr_Format(PyExc_TypeError,
				     "submit_read() got an unexpected or repeated "
				     "keyword argument '%U'",
				     name);
			return NULL;
		}
		a[i] = args[nargs + k];
	}
	if (!self->slow) {
		PyErr_SetString(PyExc_RuntimeError, "set_fast() was not called");
		return NULL;
	}
	if (!a[0] || a[3] == Py_None || !self->queue || !self->lba_nbytes || !fq_usable(self) ||
	    PyDict_GET_SIZE(self->pending) >= self->depth || !PyLong_Check(a[0]) ||
	    (a[1] && !PyLong_Check(a[1]))) {
		goto slow;
	}
	slba = PyLong_AsUnsignedLongLong(a[0]);
	if (a[1]) {
		nlb = PyLong_AsUnsignedLong(a[1]);
	}
	if (PyErr_Occurred() || nlb < 1 || nlb > 0x10000) {
		PyErr_Clear();
		goto slow;
	}
	closed = PyObject_GetAttr(a[3], str_closed);
	bad = closed ? PyObject_IsTrue(closed) : -1;
	Py_XDECREF(closed);
	if (bad || PyObject_GetBuffer(a[3], &view, PyBUF_SIMPLE)) {
		PyErr_Clear();
		goto slow; /* the Python method raises the error for it */
	}
	PyBuffer_Release(&view); /* the entry below keeps the buffer alive */
	if (view.len < (Py_ssize_t)nlb * self->lba_nbytes) {
		goto slow;
	}
	entry = PyTuple_Pack(4, a[2], a[3], str_read, a[4]);
	if (!entry) {
		return NULL;
	}
	ret = fq_submit_one(self, 0, slba, nlb, view.buf, entry, &stage, &status);
	Py_DECREF(entry);
	if (ret) {
		PyObject *err;

		if (stage == 2) {
			return NULL;
		}
		err = PyObject_CallFunction(self->failed, "(iiI)", stage, ret, status);
		Py_XDECREF(err);
		return NULL; /* `failed` raises */
	}
	Py_INCREF(a[3]);
	return a[3];

slow:
	PyErr_Clear(); /* from a check above: the Python method reports the case itself */
	for (int i = 0; i < 5; ++i) {
		if (!a[i]) {
			a[i] = i == 1 ? one : Py_None;
		}
	}
	if (!a[0] || a[0] == Py_None) {
		return PyObject_Vectorcall(self->slow, args, (size_t)nargs, kwnames);
	}
	return PyObject_Vectorcall(self->slow, a, 5, NULL);
}

/* synchronous commands: a context copied from a template onto the stack, the C call made
 * with the GIL released (as ctypes does) */
static nvm_io_fn g_sync_io[2];
static Py_ssize_t g_ctx_size, g_status_off, g_result_off;

#define SYNC_CTX_MAX 512

/* init_sync(read, write, ctx_size, status_off, result_off) */
static PyObject *
mod_init_sync(PyObject *mod, PyObject *args)
{
	PyObject *ord, *owr;
	void *fn[2];
	Py_ssize_t size, soff, roff;

	(void)mod;
	if (!PyArg_ParseTuple(args, "OOnnn", &ord, &owr, &size, &soff, &roff)) {
		return NULL;
	}
	fn[0] = PyLong_AsVoidPtr(ord);
	fn[1] = PyLong_AsVoidPtr(owr);
	if (PyErr_Occurred()) {
		return NULL;
	}
	if (!fn[0] || !fn[1] || size < 1 || size > SYNC_CTX_MAX || soff < 0 || soff + 2 > size ||
	    roff < 0 || roff + 4 > size) {
		PyErr_SetString(PyExc_ValueError, "invalid function address, size or offset");
		return NULL;
	}
	memcpy(&g_sync_io[0], &fn[0], sizeof(void *));
	memcpy(&g_sync_io[1], &fn[1], sizeof(void *));
	g_ctx_size = size;
	g_status_off = soff;
	g_result_off = roff;
	Py_RETURN_NONE;
}

/* sync_io(write, template, nsid, slba, nlb, bufaddr) -> None | (ret, status, result) */
static PyObject *
mod_sync_io(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	union {
		unsigned char b[SYNC_CTX_MAX];
		uint64_t align;
	} ctx;
	unsigned long long slba;
	unsigned long nsid, nlb;
	uint32_t result;
	uint16_t status;
	void *buf;
	int write, ret;

	(void)mod;
	if (nargs != 6) {
		PyErr_SetString(PyExc_TypeError,
				"sync_io(write, template, nsid, slba, nlb, bufaddr)");
		return NULL;
	}
	if (!g_ctx_size) {
		PyErr_SetString(PyExc_RuntimeError, "init_sync() was not called");
		return NULL;
	}
	if (!PyBytes_CheckExact(args[1]) || PyBytes_GET_SIZE(args[1]) != g_ctx_size) {
		PyErr_SetString(PyExc_TypeError, "template must be bytes of the context size");
		return NULL;
	}
	write = PyObject_IsTrue(args[0]);
	nsid = PyLong_AsUnsignedLong(args[2]);
	slba = PyLong_AsUnsignedLongLong(args[3]);
	nlb = PyLong_AsUnsignedLong(args[4]);
	buf = PyLong_AsVoidPtr(args[5]);
	if (write < 0 || PyErr_Occurred()) {
		return NULL;
	}
	if (nlb < 1 || nlb > 0x10000) {
		PyErr_SetString(PyExc_ValueError, "nlb must be 1..65536");
		return NULL;
	}
	memcpy(ctx.b, PyBytes_AS_STRING(args[1]), (size_t)g_ctx_size);
	Py_BEGIN_ALLOW_THREADS ret =
		g_sync_io[write](ctx.b, (uint32_t)nsid, slba, (uint16_t)(nlb - 1), buf, NULL);
	Py_END_ALLOW_THREADS if (!ret)
	{
		Py_RETURN_NONE;
	}
	memcpy(&status, ctx.b + g_status_off, sizeof(status));
	memcpy(&result, ctx.b + g_result_off, sizeof(result));
	return Py_BuildValue("(iIk)", ret, (unsigned int)status, (unsigned long)result);
}

static PyMethodDef mod_methods[] = {
	{"init_sync", (PyCFunction)mod_init_sync, METH_VARARGS,
	 "init_sync(read, write, ctx_size, status_off, result_off)"},
	{"sync_io", (PyCFunction)(void (*)(void))mod_sync_io, METH_FASTCALL,
	 "sync_io(write, template, nsid, slba, nlb, bufaddr) -> None | (ret, status, result)"},
	{NULL, NULL, 0, NULL},
};

static PyMethodDef fq_methods[] = {
	{"submit", (PyCFunction)(void (*)(void))fq_submit, METH_FASTCALL,
	 "submit(write, slba, nlb, bufaddr, entry) -> None | (stage, ret, status)"},
	{"set_fast", (PyCFunction)fq_set_fast, METH_VARARGS,
	 "set_fast(lba_nbytes, slow, failed): enable submit_read"},
	{"detach", (PyCFunction)fq_detach, METH_NOARGS,
	 "detach(): the queue is gone; submit_read always takes the slow path"},
	{"submit_read", (PyCFunction)(void (*)(void))fq_submit_read, METH_FASTCALL | METH_KEYWORDS,
	 "submit_read(slba, nlb=1, callback=None, buf=None, tag=None) -> buf"},
	{"submit_batch", (PyCFunction)(void (*)(void))fq_submit_batch, METH_FASTCALL,
	 "submit_batch(write, slbas, nlb, minbytes, bufs, callback, tags, what) -> (n, stage, "
	 "ret, status)"},
	{"poke", (PyCFunction)fq_poke, METH_O,
	 "poke(max) -> (ret, [(entry, status, result), ...])"},
	{"poke_dispatch", (PyCFunction)fq_poke_dispatch, METH_O,
	 "poke_dispatch(max) -> (ret, reaped, [(entry, status, result) left to Python])"},
	{"collect", (PyCFunction)fq_collect, METH_NOARGS,
	 "collect() -> [(entry, status, result), ...] recorded since the last poke/collect"},
	{NULL, NULL, 0, NULL},
};

static PyTypeObject FastQueueType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "xnvme._fastq.FastQueue",
	.tp_basicsize = sizeof(FastQueue),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_traverse = (traverseproc)fq_traverse,
	.tp_clear = (inquiry)fq_clear,
	.tp_free = PyObject_GC_Del,
	.tp_doc = "FastQueue(queue, nsid, read, write, get_ctx, put_ctx, poke, set_cb, "
		  "status_off, result_off, depth, pending)",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)fq_init,
	.tp_dealloc = (destructor)fq_dealloc,
	.tp_methods = fq_methods,
};

static struct PyModuleDef fastq_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "xnvme._fastq",
	.m_doc = "Compiled fast path of xnvme.Queue (optional)",
	.m_size = -1,
	.m_methods = mod_methods,
};

PyMODINIT_FUNC
PyInit__fastq(void)
{
	PyObject *mod;

	if (PyType_Ready(&FastQueueType) < 0) {
		return NULL;
	}
	if (!zero) {
		zero = PyLong_FromLong(0);
		if (!zero) {
			return NULL;
		}
	}
	if (!str_closed) {
		static const char *const kw[5] = {"slba", "nlb", "callback", "buf", "tag"};

		str_closed = PyUnicode_InternFromString("_closed");
		str_read = PyUnicode_InternFromString("read");
		one = PyLong_FromLong(1);
		if (!str_closed || !str_read || !one) {
			return NULL;
		}
		for (int i = 0; i < 5; ++i) {
			str_kw[i] = PyUnicode_InternFromString(kw[i]);
			if (!str_kw[i]) {
				return NULL;
			}
		}
	}
	mod = PyModule_Create(&fastq_module);
	if (!mod) {
		return NULL;
	}
	Py_INCREF(&FastQueueType);
	if (PyModule_AddObject(mod, "FastQueue", (PyObject *)&FastQueueType) < 0) {
		Py_DECREF(&FastQueueType);
		Py_DECREF(mod);
		return NULL;
	}
	return mod;
}
