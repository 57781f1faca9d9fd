/* The plan cache's key and its hits: plan_key and plan_hit (their contracts: kernels.h).
 *
 * A call of an operator with a plan (split, variadic_split, strided_slice, slice) on a NumPy
 * array whose plan an earlier call validated is answered here in one C function: the key of the call, one dict lookup, then the
 * plan's indices applied to the array. It moves no data: it cuts the interpreter's overhead of
 * a repeated call (bench/HISTORY.md, "Core operators": split 0.16-0.17 -> 0.10-0.11 of
 * np.split, strided_slice 4.76-5.56 -> 2.61-2.80 of y[idx]). Its key rule is the cache's only
 * one.
 */
#include "kernels.h"

#define DM_KEY_WORDS 256
#define DM_MAX_PARAMS 8

/* A list another thread may change while we read it: in free-threaded builds its items are read
 * under its lock, so a key holds the list as it was at one moment. (A no-op with the GIL, which
 * nothing below releases.) */
#ifdef Py_BEGIN_CRITICAL_SECTION
#define DM_BEGIN_LOCKED(op) Py_BEGIN_CRITICAL_SECTION(op)
#define DM_END_LOCKED() Py_END_CRITICAL_SECTION()
#else
#define DM_BEGIN_LOCKED(op) {
#define DM_END_LOCKED() }
#endif

/* Appends the values of `len` items, each an exact int in int64, to words[*n...]; returns 0,
 * or -1 where an item is anything else. Runs no Python code. */
static int int_words(PyObject *const *items, Py_ssize_t len, long long *words, Py_ssize_t *n)
{
    for (Py_ssize_t i = 0; i < len; i++) {
        int overflow;
        if (!PyLong_CheckExact(items[i])) {
            return -1;
        }
        long long x = PyLong_AsLongLongAndOverflow(items[i], &overflow);
        if (overflow) { /* Python ints beyond int64: the Python path */
            return -1;
        }
        words[(*n)++] = x;
    }
    return 0;
}

static int
key_values(PyObject *value, PyObject *ndarray, long long *words, Py_ssize_t *n)
{
    /* Appends a kind-and-length word, then the values of `value`, to words[*n...]; returns 0,
     * or -1 for a value the key does not take. Never leaves an exception set. */
    if (*n >= DM_KEY_WORDS) {
        return -1;
    }
    Py_ssize_t head = (*n)++;
    if (value == Py_None) {
        words[head] = 0;
        return 0;
    }
    if (PyLong_CheckExact(value)) {
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (overflow || *n >= DM_KEY_WORDS) {
            return -1;
        }
        words[head] = 1;
        words[(*n)++] = x;
        return 0;
    }
    if (PyList_CheckExact(value) || PyTuple_CheckExact(value)) {
        int result;
        DM_BEGIN_LOCKED(value)
        const Py_ssize_t len = PySequence_Fast_GET_SIZE(value);
        result = len > DM_KEY_WORDS - *n ? -1
                                         : int_words(PySequence_Fast_ITEMS(value), len, words, n);
        words[head] = 2 + ((long long)len << 8);
        DM_END_LOCKED()
        return result;
    }
    if ((PyObject *)Py_TYPE(value) != ndarray) {
        return -1;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(value, &view, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        return -1;
    }
    int result = -1;
    const char *f = view.format;
    int is_signed = -1;
    if (view.ndim == 1 && f != NULL && f[0] != '\0' && f[1] == '\0') {
        switch (f[0]) {
        case 'b': case 'h': case 'i': case 'l': case 'q': is_signed = 1; break;
        case 'B': case 'H': case 'I': case 'L': case 'Q': is_signed = 0; break;
        default: break;
        }
    }
    Py_ssize_t size = view.itemsize;
    if (is_signed >= 0 && (size == 1 || size == 2 || size == 4 || size == 8) &&
        view.shape[0] <= DM_KEY_WORDS - *n) {
        Py_ssize_t len = view.shape[0];
        result = 0;
        for (Py_ssize_t i = 0; i < len; i++) {
            const char *p = (const char *)view.buf + i * view.strides[0];
            long long x;
            if (is_signed) {
                switch (size) {
                case 1: { int8_t t; memcpy(&t, p, 1); x = t; break; }
                case 2: { int16_t t; memcpy(&t, p, 2); x = t; break; }
                case 4: { int32_t t; memcpy(&t, p, 4); x = t; break; }
                default: { int64_t t; memcpy(&t, p, 8); x = t; break; }
                }
            }
            else {
                uint64_t u;
                switch (size) {
                case 1: { uint8_t t; memcpy(&t, p, 1); u = t; break; }
                case 2: { uint16_t t; memcpy(&t, p, 2); u = t; break; }
                case 4: { uint32_t t; memcpy(&t, p, 4); u = t; break; }
                default: { memcpy(&u, p, 8); break; }
                }
                if (u > (uint64_t)INT64_MAX) { /* beyond int64: the Python path */
                    result = -1;
                    break;
                }
                x = (long long)u;
            }
            words[(*n)++] = x;
        }
        words[head] = 2 + ((long long)len << 8);
    }
    PyBuffer_Release(&view);
    return result;
}

static PyObject *
build_key(PyObject *ndarray, PyObject *op, PyObject *shape, PyObject *const *params,
          Py_ssize_t nparams)
{
    /* A new reference to the key; Py_None (new reference) when the key does not take these
     * values; NULL with an exception set. */
    long long words[DM_KEY_WORDS];
    Py_ssize_t rank = PyTuple_GET_SIZE(shape);
    int overflow = 1;
    const long long tag = PyLong_CheckExact(op) ? PyLong_AsLongLongAndOverflow(op, &overflow) : 0;
    if (overflow || rank > DM_KEY_WORDS - 2 - nparams) {
        Py_RETURN_NONE;
    }
    Py_ssize_t n = 0;
    words[n++] = tag;
    words[n++] = rank;
    for (Py_ssize_t i = 0; i < rank; i++) {
        long long d = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
        if (d == -1 && PyErr_Occurred()) {
            /* Any Exception from an entry's __index__ (or an int past int64): not a shape the
             * key takes, as in python_key. A KeyboardInterrupt or SystemExit is no answer about
             * the value: it goes on to the caller. */
            if (!PyErr_ExceptionMatches(PyExc_Exception)) {
                return NULL;
            }
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        words[n++] = d;
    }
    for (Py_ssize_t i = 0; i < nparams; i++) {
        if (key_values(params[i], ndarray, words, &n) < 0) {
            Py_RETURN_NONE;
        }
    }
    return PyBytes_FromStringAndSize((const char *)words, n * (Py_ssize_t)sizeof(long long));
}

PyObject *dm_plan_key(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs < 3 || nargs > 3 + DM_MAX_PARAMS) {
        PyErr_SetString(PyExc_TypeError, "plan_key(ndarray, op, shape, *params)");
        return NULL;
    }
    if (!PyTuple_CheckExact(args[2])) {
        Py_RETURN_NONE;
    }
    return build_key(args[0], args[1], args[2], args + 3, nargs - 3);
}

PyObject *dm_plan_hit(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 4 || nargs > 4 + DM_MAX_PARAMS || !PyDict_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "plan_hit(plans: dict, ndarray, op, data, *params)");
        return NULL;
    }
    PyObject *ndarray = args[1];
    PyObject *data = args[3];
    if ((PyObject *)Py_TYPE(data) != ndarray) {
        Py_RETURN_NONE;
    }
    const ModuleState *state = PyModule_GetState(module);
    PyObject *shape = PyObject_GetAttr(data, state->shape);
    if (shape == NULL) {
        return NULL;
    }
    if (!PyTuple_CheckExact(shape)) {
        Py_DECREF(shape);
        Py_RETURN_NONE;
    }
    PyObject *key = build_key(ndarray, args[2], shape, args + 4, nargs - 4);
    Py_DECREF(shape);
    if (key == NULL || key == Py_None) {
        return key;
    }
    /* The plan, a datamove._plan.Plan: a tuple (indices, single, ...). A new reference: another
     * thread may drop the dict's entry while we index. */
    PyObject *plan;
#if PY_VERSION_HEX >= 0x030D0000
    const int found = PyDict_GetItemRef(args[0], key, &plan);
#else
    plan = PyDict_GetItemWithError(args[0], key);
    const int found = plan != NULL ? 1 : PyErr_Occurred() ? -1 : 0;
    Py_XINCREF(plan);
#endif
    Py_DECREF(key);
    if (found <= 0) {
        if (found < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    PyObject *out;
    PyObject *indices = PyTuple_Check(plan) && PyTuple_GET_SIZE(plan) >= 2
                            ? PyTuple_GET_ITEM(plan, 0)
                            : NULL;
    if (indices == NULL || !PyTuple_CheckExact(indices)) {
        PyErr_SetString(PyExc_TypeError, "plan_hit: a plan must be (indices: tuple, single, ...)");
        out = NULL;
    }
    else if (PyTuple_GET_ITEM(plan, 1) == Py_True) { /* one output: data[indices[0]] */
        out = PyTuple_GET_SIZE(indices) == 1
                  ? PyObject_GetItem(data, PyTuple_GET_ITEM(indices, 0))
                  : (PyErr_SetString(PyExc_TypeError, "plan_hit: a single plan has one index"),
                     NULL);
    }
    else {
        Py_ssize_t count = PyTuple_GET_SIZE(indices);
        out = PyTuple_New(count);
        for (Py_ssize_t i = 0; out != NULL && i < count; i++) {
            PyObject *chunk = PyObject_GetItem(data, PyTuple_GET_ITEM(indices, i));
            if (chunk == NULL) {
                Py_CLEAR(out);
                break;
            }
            PyTuple_SET_ITEM(out, i, chunk);
        }
    }
    Py_DECREF(plan);
    return out;
}
