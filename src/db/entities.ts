import { User } from "../modules/users/user.entity";
import { AccessKey } from "../modules/auth/access-key.entity";

/** The explicit entity list: discovery never scans the file system. */
export const entities = [User, AccessKey];
