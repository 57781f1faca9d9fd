/* The bindings of datamove._kernels: its functions, constants and initialisation (what each
 * function does: kernels.h).
 *
 * The checks here are of form only: each part is a tuple of ints, runs and offsets are not
 * negative. The addresses are trusted: the callers (datamove._backends._copy.row_plan and
 * directml/_nibbles.py) derive every address, stride and count from live arrays that they keep
 * alive for the call, and check that the pieces fit; a wrong address from Python would be
 * memory corruption, not an exception. The loops run without the GIL.
 *
 * Multi-phase initialisation, with the module's one Python object (the name "shape") in its
 * state, so that each interpreter has its own module. What the loops share across threads and
 * interpreters is no Python object: the CPU's features, read where needed from the CPU model
 * the C runtime fills once at load time, and the counters of shuffle_counts() (atomic). Every
 * function is safe without a GIL (free-threaded builds): a list's items are read under its lock,
 * the plan cache's entry is held by a new reference.
 */
#include "kernels.h"

/* `seq` as a tuple the call owns, so that a list changed by another thread (or by an item's
 * __index__) while we read it cannot free an item under us; NULL with TypeError(message) where
 * `seq` is not a sequence. */
static PyObject *parts_tuple(PyObject *seq, const char *message)
{
    PyObject *fast = PySequence_Fast(seq, message); /* a list or a tuple */
    if (fast == NULL || PyTuple_CheckExact(fast)) {
        return fast;
    }
    PyObject *tuple = PyList_AsTuple(fast);
    Py_DECREF(fast);
    return tuple;
}

static PyObject *copy_rows(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *seq;
    Py_ssize_t row0, row1;
    int streaming;
    if (!PyArg_ParseTuple(args, "Onnp:copy_rows", &seq, &row0, &row1, &streaming)) {
        return NULL;
    }
    PyObject *items = parts_tuple(seq, "copy_rows: parts must be a sequence");
    if (items == NULL) {
        return NULL;
    }
    const Py_ssize_t nparts = PyTuple_GET_SIZE(items);
    Part *parts = PyMem_Malloc(sizeof(Part) * (size_t)(nparts > 0 ? nparts : 1));
    if (parts == NULL) {
        Py_DECREF(items);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < nparts; k++) {
        Py_ssize_t dst, dst_stride, src, src_stride, run;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(items, k), "nnnnn:copy_rows part", &dst,
                              &dst_stride, &src, &src_stride, &run)) {
            goto fail;
        }
        if (run < 0) {
            PyErr_SetString(PyExc_ValueError, "copy_rows: negative run");
            goto fail;
        }
        parts[k].dst = (char *)dst;
        parts[k].src = (const char *)src;
        parts[k].dst_stride = dst_stride;
        parts[k].src_stride = src_stride;
        parts[k].run = run;
    }
    Py_DECREF(items);
    if (row0 < row1 && nparts > 0) {
        Py_BEGIN_ALLOW_THREADS
        dm_copy_rows(parts, nparts, row0, row1, streaming);
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(parts);
    Py_RETURN_NONE;
fail:
    PyMem_Free(parts);
    Py_DECREF(items);
    return NULL;
}

static PyObject *copy_nibble_rows(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *seq;
    Py_ssize_t row0, row1;
    if (!PyArg_ParseTuple(args, "Onn:copy_nibble_rows", &seq, &row0, &row1)) {
        return NULL;
    }
    PyObject *items = parts_tuple(seq, "copy_nibble_rows: parts must be a sequence");
    if (items == NULL) {
        return NULL;
    }
    const Py_ssize_t nparts = PyTuple_GET_SIZE(items);
    NibblePart *parts = PyMem_Malloc(sizeof(NibblePart) * (size_t)(nparts > 0 ? nparts : 1));
    if (parts == NULL) {
        Py_DECREF(items);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < nparts; k++) {
        Py_ssize_t dst, src;
        NibblePart *p = &parts[k];
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(items, k), "nnnnnnn:copy_nibble_rows part", &dst,
                              &p->dst_first, &p->dst_stride, &src, &p->src_first,
                              &p->src_stride, &p->run)) {
            goto fail;
        }
        if (p->run < 0 || p->dst_first < 0 || p->src_first < 0) {
            PyErr_SetString(PyExc_ValueError, "copy_nibble_rows: negative run or offset");
            goto fail;
        }
        p->dst = (unsigned char *)dst;
        p->src = (const unsigned char *)src;
    }
    Py_DECREF(items);
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = dm_copy_nibble_rows(parts, nparts, row0, row1);
    Py_END_ALLOW_THREADS
    PyMem_Free(parts);
    if (status < 0) {
        return PyErr_NoMemory();
    }
    Py_RETURN_NONE;
fail:
    PyMem_Free(parts);
    Py_DECREF(items);
    return NULL;
}

static PyObject *shuffle_counts(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    Py_ssize_t n[DM_PROGRAMS] = {0};
#if DM_SHUFFLE
    dm_shuffle_counts(n);
#endif
    PyObject *counts = PyTuple_New(DM_PROGRAMS);
    for (Py_ssize_t i = 0; counts != NULL && i < DM_PROGRAMS; i++) {
        PyObject *item = PyLong_FromSsize_t(n[i]);
        if (item == NULL) {
            Py_CLEAR(counts);
            break;
        }
        PyTuple_SET_ITEM(counts, i, item);
    }
    return counts;
}

static PyMethodDef methods[] = {
    {"shuffle_counts", shuffle_counts, METH_NOARGS,
     "shuffle_counts(): programs run so far (dense, sparse on bytes, on nibbles, slots, line "
     "splits in place, staged)."},
    {"copy_rows", copy_rows, METH_VARARGS,
     "copy_rows(parts, row0, row1, streaming): copy rows [row0, row1) of every part."},
    {"copy_nibble_rows", copy_nibble_rows, METH_VARARGS,
     "copy_nibble_rows(parts, row0, row1): copy rows [row0, row1) of 4-bit elements."},
    {"plan_key", (PyCFunction)(void (*)(void))dm_plan_key, METH_FASTCALL,
     "plan_key(ndarray, op, shape, *params): the key of a cached plan, or None."},
    {"plan_hit", (PyCFunction)(void (*)(void))dm_plan_hit, METH_FASTCALL,
     "plan_hit(plans, ndarray, op, data, *params): a cached call's outputs, or None."},
    {NULL, NULL, 0, NULL},
};

static int exec_module(PyObject *module)
{
    ModuleState *state = PyModule_GetState(module);
    state->shape = PyUnicode_InternFromString("shape");
    if (state->shape == NULL) {
        return -1;
    }
#if DM_SHUFFLE
    __builtin_cpu_init(); /* done when the library loaded; again, it only returns */
    const int shuffle = dm_have_vbmi();
#else
    const int shuffle = 0;
#endif
    if (PyModule_AddIntConstant(module, "STREAMING", DM_STREAMING) < 0 ||
        PyModule_AddIntConstant(module, "ATOMIC_NIBBLES", DM_ATOMIC_NIBBLES) < 0 ||
        PyModule_AddIntConstant(module, "SHUFFLE", shuffle) < 0) {
        return -1;
    }
    return 0;
}

static int traverse_module(PyObject *module, visitproc visit, void *arg)
{
    const ModuleState *state = PyModule_GetState(module);
    Py_VISIT(state->shape);
    return 0;
}

static int clear_module(PyObject *module)
{
    ModuleState *state = PyModule_GetState(module);
    Py_CLEAR(state->shape);
    return 0;
}

static void free_module(void *module)
{
    (void)clear_module((PyObject *)module);
}

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, (void *)exec_module},
#ifdef Py_mod_multiple_interpreters /* 3.12 */
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#ifdef Py_mod_gil /* 3.13 */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "datamove._kernels",
    .m_doc = "datamove's optional compiled part: the copy engine's row loops for bytes and 4-bit "
             "elements (copy_rows, copy_nibble_rows) and the operators' plan cache (plan_key, "
             "plan_hit).",
    .m_size = sizeof(ModuleState),
    .m_methods = methods,
    .m_slots = slots,
    .m_traverse = traverse_module,
    .m_clear = clear_module,
    .m_free = free_module,
};

PyMODINIT_FUNC PyInit__kernels(void)
{
    return PyModuleDef_Init(&module_def);
}
