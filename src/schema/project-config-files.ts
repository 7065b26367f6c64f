/**
 * Looked up in this order at the repository root; the first that exists is the project config. A module of its own:
 * finding the project root (every command's first step, `serve` too) must not load the config's parser and schemas.
 */
export const PROJECT_CONFIG_FILES = ['dashcd.yaml', 'dashcd.yml'] as const;
