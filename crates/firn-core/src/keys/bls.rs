//! BLS12-381 keys and signatures (min_pk), as AvalancheGo uses them.
