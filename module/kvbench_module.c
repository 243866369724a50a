// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench module: its parameters, init and exit. It starts the core
 * (kvbench_main.c: the backends and the switch between them), then the
 * device (kvbench_dev.c, with its sysfs files and io_uring commands), and
 * stops them in the reverse order; neither of those calls back here.
 *
 * The owner machinery's own parameters (kthread_spin_us, owner_cpus) stay
 * with it, in kvbench_owner.c, beside the state they change in running
 * owner threads; so do its test knobs, in the debugfs directory made here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "kvbench.h"

/* Whether kvbench_init() registered the device (kvbench_cleanup()). */
static bool kvbench_registered;

/* debugfs's kvbench/: the owners' test knobs (kvbench_owner.c). */
static struct dentry *kvbench_debugfs;

static void kvbench_list_backends(void)
{
	char names[KVBENCH_BACKENDS_MAX * KVBENCH_NAME_MAX] = "";
	const struct kvbench_backend_ops *ops;
	unsigned int i;

	for (i = 0; (ops = kvbench_backend_at(i)); i++) {
		strlcat(names, " ", sizeof(names));
		strlcat(names, ops->name, sizeof(names));
	}
	pr_err("valid backends:%s\n", names);
}

static int kvbench_param_backend_set(const char *val,
				     const struct kernel_param *kp)
{
	int ret = kvbench_switch_by_name(val);

	/* Only the administrator loading the module gets a hint. */
	if (ret == -EINVAL && !kvbench_core_live()) {
		pr_err("unknown backend '%s'\n", val);
		kvbench_list_backends();
	}
	return ret;
}

static int kvbench_param_backend_get(char *buf, const struct kernel_param *kp)
{
	return kvbench_backend_name_show(buf);
}

static const struct kernel_param_ops kvbench_backend_param_ops = {
	.set = kvbench_param_backend_set,
	.get = kvbench_param_backend_get,
};
module_param_cb(backend, &kvbench_backend_param_ops, NULL, 0644);
MODULE_PARM_DESC(backend,
		 "Concurrency backend: one of those the sysfs file backends lists");

static int kvbench_param_hash_bits_set(const char *val,
				       const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 20);
}

static const struct kernel_param_ops kvbench_hash_bits_param_ops = {
	.set = kvbench_param_hash_bits_set,
	.get = param_get_uint,
};
module_param_cb(hash_bits, &kvbench_hash_bits_param_ops, &kvbench_hash_bits, 0644);
MODULE_PARM_DESC(hash_bits,
		 "log2 of the bucket count of hashtable backends, 1..20 (default 12); applies when a backend is created");

static int kvbench_param_queue_len_set(const char *val,
				       const struct kernel_param *kp)
{
	unsigned int n;
	int ret = kstrtouint(val, 0, &n);

	if (ret)
		return ret;
	if (n < 2 || n > 65536 || !is_power_of_2(n))
		return -EINVAL;
	WRITE_ONCE(kvbench_queue_len, n);
	return 0;
}

static const struct kernel_param_ops kvbench_queue_len_param_ops = {
	.set = kvbench_param_queue_len_set,
	.get = param_get_uint,
};
module_param_cb(queue_len, &kvbench_queue_len_param_ops, &kvbench_queue_len, 0644);
MODULE_PARM_DESC(queue_len,
		 "Request queue slots of each owner thread of a backend with owner threads, a power of two 2..65536 (default 256); applies when a backend is created");

static int kvbench_param_owners_set(const char *val,
				    const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, KVBENCH_OWNERS_MAX);
}

static const struct kernel_param_ops kvbench_owners_param_ops = {
	.set = kvbench_param_owners_set,
	.get = param_get_uint,
};
module_param_cb(owners, &kvbench_owners_param_ops, &kvbench_owners, 0644);
MODULE_PARM_DESC(owners,
		 "Owner threads of a backend with several, 1..1024, or 0 (default) for one per 8 online CPUs; applies when a backend is created");

/* Undo whatever part of kvbench_init() was done; idempotent. */
static void kvbench_cleanup(void)
{
	if (kvbench_registered) {
		kvbench_dev_unregister();
		kvbench_registered = false;
	}
	kvbench_core_exit();
	debugfs_remove_recursive(kvbench_debugfs);
	kvbench_debugfs = NULL;
}

static int __init kvbench_init(void)
{
	int ret;

	/* Optional: the module works without debugfs. */
	kvbench_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	kvbench_owner_debugfs(kvbench_debugfs);

	ret = kvbench_core_init();
	if (ret) {
		debugfs_remove_recursive(kvbench_debugfs);
		return ret;
	}

	ret = kvbench_dev_register();
	if (ret)
		goto cleanup;
	kvbench_registered = true;
	return 0;

cleanup:
	kvbench_cleanup();
	return ret;
}

static void __exit kvbench_exit(void)
{
	kvbench_cleanup();
}

module_init(kvbench_init);
module_exit(kvbench_exit);

MODULE_DESCRIPTION("Key-value map behind interchangeable concurrency backends");
MODULE_LICENSE("GPL");
MODULE_VERSION(KVBENCH_VERSION);
