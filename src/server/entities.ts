import { User } from "../modules/users/user.entity";
import { AccessKey } from "../modules/identity/credentials/access-key.entity";
import { OAuthAccount } from "../modules/identity/oauth/oauth-account.entity";
import { Domain } from "../modules/domains/domain.entity";
import { DomainUser } from "../modules/domains/domain-user.entity";
import { DomainRole } from "../modules/domains/domain-role.entity";
import { DomainInvitation } from "../modules/domains/domain-invitation.entity";
import { ProblemGroup } from "../modules/problems/problem-group.entity";
import { Problem } from "../modules/problems/problem.entity";
import { ProblemConfig } from "../modules/problem-configs/problem-config.entity";
import { ProblemConfigFile } from "../modules/problem-configs/problem-config-file.entity";
import { Blob } from "../modules/problem-configs/blob.entity";
import { ProblemSet } from "../modules/problem-sets/problem-set.entity";
import { ProblemSetProblem } from "../modules/problem-sets/problem-set-problem.entity";
import { JudgeRecord, RecordCount, RecordFile } from "../modules/records/record.entity";
import { AuditEvent } from "../modules/audit/audit-event.entity";
import { SimilarityReport } from "../modules/similarity/similarity-report.entity";
import { ProblemSetExtension } from "../modules/problem-sets/problem-set-extension.entity";
import { PackageVerification, ProblemAttachment } from "../modules/problem-packages/package-verification.entity";
import { Run, RunFile } from "../modules/runs/run.entity";
import { Clarification } from "../modules/clarifications/clarification.entity";

/** The explicit entity list: discovery never scans the file system. */
export const entities = [
  User,
  AccessKey,
  OAuthAccount,
  Domain,
  DomainUser,
  DomainRole,
  DomainInvitation,
  ProblemGroup,
  Problem,
  ProblemConfig,
  ProblemConfigFile,
  Blob,
  ProblemSet,
  ProblemSetProblem,
  ProblemSetExtension,
  JudgeRecord,
  RecordFile,
  RecordCount,
  AuditEvent,
  SimilarityReport,
  PackageVerification,
  ProblemAttachment,
  Run,
  RunFile,
  Clarification,
];
